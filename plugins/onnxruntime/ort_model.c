/* The one-node ONNX model, encoded by hand in protobuf's wire format
 * (onnx.proto, proto2 field numbers in the comments below).
 *
 * A field is a key, varint(field << 3 | wire type), then its value: wire
 * type 0 a varint (ints, enums), 2 a varint length and that many bytes
 * (strings, embedded messages, repeated fields one entry at a time), 5 four
 * little-endian bytes (float).  Embedded messages are built into their own
 * buffer first and then written length-delimited into their parent.
 *
 * The graph has every GroupQueryAttention input the signature uses as a
 * graph input (an absent optional input is the empty name in the node's
 * input list), ranks given with symbolic dims so that one session serves
 * every shape, and the three outputs the schema requires. */
#include <stdlib.h>
#include <string.h>
#include "ort_plan.h"

typedef struct pb {
    uint8_t *buf;
    size_t len, cap;
    int oom;
} pb;

static void pb_bytes(pb *w, const void *p, size_t n)
{
    if (w->oom)
        return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->len + n)
            cap *= 2;
        uint8_t *b = realloc(w->buf, cap);
        if (b == NULL) {
            w->oom = 1;
            return;
        }
        w->buf = b, w->cap = cap;
    }
    if (n > 0)
        memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void pb_varint(pb *w, uint64_t v)
{
    uint8_t b[10];
    int n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v != 0)
            b[n] |= 0x80;
        n++;
    } while (v != 0);
    pb_bytes(w, b, (size_t)n);
}

static void pb_key(pb *w, unsigned field, unsigned wire)
{
    pb_varint(w, (uint64_t)field << 3 | wire);
}

static void pb_int(pb *w, unsigned field, int64_t v)
{
    pb_key(w, field, 0);
    pb_varint(w, (uint64_t)v); /* negatives: ten bytes, two's complement */
}

static void pb_str(pb *w, unsigned field, const char *s)
{
    size_t n = strlen(s);
    pb_key(w, field, 2);
    pb_varint(w, n);
    pb_bytes(w, s, n);
}

static void pb_float(pb *w, unsigned field, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16),
                    (uint8_t)(u >> 24)};
    pb_key(w, field, 5);
    pb_bytes(w, b, 4);
}

/* Writes the finished message `sub` as field `field` of w and frees it. */
static void pb_msg(pb *w, unsigned field, pb *sub)
{
    if (sub->oom)
        w->oom = 1;
    pb_key(w, field, 2);
    pb_varint(w, sub->len);
    pb_bytes(w, sub->buf, sub->len);
    free(sub->buf);
    memset(sub, 0, sizeof *sub);
}

/* ValueInfoProto: name = 1, type = 2.  TypeProto: tensor_type = 1.
 * TypeProto.Tensor: elem_type = 1, shape = 2.  TensorShapeProto: dim = 1.
 * Dimension: dim_value = 1, dim_param = 2.  rank < 0: no shape. */
static void value_info(pb *graph, unsigned field, const char *name, int elem,
                       int rank)
{
    pb vi = {0}, type = {0}, tensor = {0}, shape = {0};
    pb_str(&vi, 1, name);
    pb_int(&tensor, 1, elem);
    if (rank >= 0) {
        for (int i = 0; i < rank; i++) {
            pb dim = {0};
            char param[32];
            size_t n = strlen(name);
            if (n > 24)
                n = 24;
            memcpy(param, name, n);
            param[n] = '_', param[n + 1] = (char)('0' + i), param[n + 2] = 0;
            pb_str(&dim, 2, param);
            pb_msg(&shape, 1, &dim);
        }
        pb_msg(&tensor, 2, &shape);
    }
    pb_msg(&type, 1, &tensor);
    pb_msg(&vi, 2, &type);
    pb_msg(graph, field, &vi);
}

/* AttributeProto: name = 1, f = 2, i = 3, type = 20 (FLOAT 1, INT 2). */
static void attr_int(pb *node, const char *name, int64_t v)
{
    pb a = {0};
    pb_str(&a, 1, name);
    pb_int(&a, 3, v);
    pb_int(&a, 20, 2);
    pb_msg(node, 5, &a);
}

static void attr_float(pb *node, const char *name, float v)
{
    pb a = {0};
    pb_str(&a, 1, name);
    pb_float(&a, 2, v);
    pb_int(&a, 20, 1);
    pb_msg(node, 5, &a);
}

static const char *const input_names[GQA_N_INPUTS] = {
    "query", "key", "value", "past_key", "past_value", "seqlens_k",
    "total_sequence_length", "cos_cache", "sin_cache", "position_ids",
    "attention_bias", "head_sink"};

/* Which inputs the signature feeds, and their ranks (-1: not fed). */
static void fed_inputs(const ort_sig *s, int rank[GQA_N_INPUTS])
{
    for (int i = 0; i < GQA_N_INPUTS; i++)
        rank[i] = -1;
    rank[GQA_QUERY] = rank[GQA_KEY] = rank[GQA_VALUE] = 3;
    if (s->has_past)
        rank[GQA_PAST_KEY] = rank[GQA_PAST_VALUE] = 4;
    rank[GQA_SEQLENS_K] = 1;
    rank[GQA_TOTAL_SEQLEN] = 0; /* a scalar */
    if (s->has_bias)
        rank[GQA_ATTENTION_BIAS] = 4;
    if (s->has_sink)
        rank[GQA_HEAD_SINK] = 1;
}

const char *ort_input_name(int i)
{
    return i >= 0 && i < GQA_N_INPUTS ? input_names[i] : NULL;
}

uint8_t *ort_model_encode(const ort_sig *s, size_t *len)
{
    int rank[GQA_N_INPUTS];
    fed_inputs(s, rank);
    int last = 0; /* trailing absent inputs are left out of the node */
    for (int i = 0; i < GQA_N_INPUTS; i++)
        if (rank[i] >= 0)
            last = i;

    /* NodeProto: input = 1, output = 2, name = 3, op_type = 4,
     * attribute = 5, domain = 7 */
    pb node = {0};
    for (int i = 0; i <= last; i++)
        pb_str(&node, 1, rank[i] >= 0 ? input_names[i] : "");
    pb_str(&node, 2, "output");
    pb_str(&node, 2, "present_key");
    pb_str(&node, 2, "present_value");
    pb_str(&node, 3, "gqa");
    pb_str(&node, 4, "GroupQueryAttention");
    pb_str(&node, 7, "com.microsoft");
    attr_int(&node, "num_heads", s->num_heads);
    attr_int(&node, "kv_num_heads", s->kv_num_heads);
    attr_float(&node, "scale", s->scale);
    if (s->local_window_size >= 0)
        attr_int(&node, "local_window_size", s->local_window_size);
    if (!s->causal) /* 1.30: bidirectional; the CPU kernel takes it */
        attr_int(&node, "causal", 0);

    /* GraphProto: node = 1, name = 2, input = 11, output = 12 */
    pb graph = {0};
    pb_msg(&graph, 1, &node);
    pb_str(&graph, 2, "fiacheck_gqa");
    for (int i = 0; i < GQA_N_INPUTS; i++) {
        if (rank[i] < 0)
            continue;
        int elem = s->elem;
        if (i == GQA_SEQLENS_K || i == GQA_TOTAL_SEQLEN)
            elem = ORT_T_INT32;
        value_info(&graph, 11, input_names[i], elem, rank[i]);
    }
    value_info(&graph, 12, "output", s->elem, 3);
    value_info(&graph, 12, "present_key", s->elem, 4);
    value_info(&graph, 12, "present_value", s->elem, 4);

    /* ModelProto: ir_version = 1, producer_name = 2, graph = 7,
     * opset_import = 8.  OperatorSetIdProto: domain = 1, version = 2. */
    pb model = {0}, op = {0}, ms = {0};
    pb_int(&model, 1, 8);
    pb_str(&model, 2, "fiacheck");
    pb_msg(&model, 7, &graph);
    pb_str(&op, 1, "");
    pb_int(&op, 2, 17);
    pb_msg(&model, 8, &op);
    pb_str(&ms, 1, "com.microsoft");
    pb_int(&ms, 2, 1);
    pb_msg(&model, 8, &ms);
    if (model.oom) {
        free(model.buf);
        return NULL;
    }
    *len = model.len;
    return model.buf;
}
