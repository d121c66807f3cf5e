"""The aclnn stand-in from Python: one FusedInferAttentionScoreV2 call, made
through the C calls a device user makes (aclCreateTensor, aclCreateTensorList,
aclCreateIntArray, the two phases of 002, aclGetRecentErrMsg), on
libfiacheck_aclnn_standin.so, which computes them with fiacheck's fast/.

The Python stand-ins of torch_npu and mindspore call `call` with what their
interface was given, translated into 002's names.
"""

import os


def call(tensors, lists, arrays, attrs, outputs, library=None):
    """Make one aclnnFusedInferAttentionScoreV2 call on the stand-in.

    Every name is 002's, as fiacheck's aclnn_v2 case vocabulary spells it
    (snake_case of the C API's parameters: query, pse_shift, atten_mask,
    key_antiquant_scale, ...; num_heads, scale, input_layout, ...).

    tensors:  dict name -> (numpy array, dtype name).  The dtype names are
              those of docs/export.md (float16, bfloat16, float32, int8,
              uint8, int4, int32, int64, uint64, bool); bfloat16 as the bit
              patterns in a uint16 array, int4 two per byte (low nibble
              first) in a uint8 array whose last dimension is halved.  A name
              not in the dict is nullptr.
    lists:    dict name -> [(numpy array, dtype name), ...]: key and value
              (aclTensorList).  A bare array in place of a pair takes the
              dtype of its NumPy type.
    arrays:   dict name -> list of int: actual_seq_lengths,
              actual_seq_lengths_kv, actual_shared_prefix_len (aclIntArray);
              absent or None is nullptr.
    attrs:    dict name -> value: num_heads, scale, pre_tokens, next_tokens,
              input_layout, num_key_value_heads, sparse_mode, inner_precise,
              block_size, antiquant_mode, softmax_lse_flag,
              key_antiquant_mode, value_antiquant_mode; an attribute not
              given takes 002's REG_OP default.
    outputs:  dict name -> (dtype name, shape): attention_out and, when the
              call has one, softmax_lse.
    library:  path of libfiacheck_aclnn_standin.so; default the environment's
              FIACHECK_ACLNN_STANDIN_LIB.

    Returns (code, message, outs): code the aclnnStatus of the first phase
    that failed (0 when both succeeded), message aclGetRecentErrMsg() when
    code is not 0 (else ""), outs a dict name -> numpy array of the outputs
    (in the npy types above) when code is 0, else {}.
    Raises ValueError for a malformed argument (unknown name or dtype, a
    shape that does not match its array).
    """
    raise NotImplementedError("aclnn_standin.call: not written yet")
