/* The escapers of include/fia/text.h: what each consumer receives from
 * bytes that are not text (invalid UTF-8, controls, XML's forbidden
 * characters), and that the terminal escaper gives the same text whether
 * its input comes whole or byte by byte. */
#include <stdlib.h>
#include "check.h"
#include "fia/text.h"

/* What fn writes for s, in a malloc'ed string. */
static char *written(void (*fn)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, s);
    fclose(f);
    return buf;
}

#define CHECK_WRITES(fn, in, want)                                           \
    do {                                                                     \
        char *got_ = written(fn, in);                                        \
        CHECK_MSG(strcmp(got_, want) == 0, "%s(%s) wrote '%s', not '%s'",    \
                  #fn, #in, got_, want);                                     \
        free(got_);                                                          \
    } while (0)

static void test_utf8_len(void)
{
    const unsigned char ok2[] = "\xC3\xA9", ok4[] = "\xF0\x9F\x98\x80";
    CHECK_EQ_INT(fia_utf8_len((const unsigned char *)"a", 1), 1);
    CHECK_EQ_INT(fia_utf8_len(ok2, 2), 2);
    CHECK_EQ_INT(fia_utf8_len(ok4, 4), 4);
    CHECK_EQ_INT(fia_utf8_len(ok4, 3), 0);                  /* cut */
    CHECK_EQ_INT(fia_utf8_len((const unsigned char *)"\xC0\x80", 2), 0);
    CHECK_EQ_INT(fia_utf8_len((const unsigned char *)"\xE0\x80\x80", 3), 0);
    CHECK_EQ_INT(fia_utf8_len((const unsigned char *)"\xED\xA0\x80", 3), 0);
    CHECK_EQ_INT(fia_utf8_len((const unsigned char *)"\xF4\x90\x80\x80", 4), 0);
    CHECK_EQ_INT(fia_utf8_len((const unsigned char *)"\x80", 1), 0);
    CHECK_EQ_INT(fia_utf8_len((const unsigned char *)"\xFF", 1), 0);
}

static void test_json(void)
{
    CHECK_WRITES(fia_json_string, "a\"b\\c", "\"a\\\"b\\\\c\"");
    CHECK_WRITES(fia_json_string, "x\n\ty\x1b\x7f", "\"x\\n\\ty\\u001b\\u007f\"");
    CHECK_WRITES(fia_json_string, "caf\xC3\xA9", "\"caf\xC3\xA9\"");
    CHECK_WRITES(fia_json_string, "r\xFF\xC3", "\"r\\ufffd\\ufffd\"");
    CHECK_WRITES(fia_json_string, "\xED\xA0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
    CHECK_WRITES(fia_json_string, NULL, "\"\"");
}

static void test_xml(void)
{
    CHECK_WRITES(fia_xml_text, "<a & 'b'>\"", "&lt;a &amp; &apos;b&apos;&gt;&quot;");
    CHECK_WRITES(fia_xml_text, "t\tn\nr\r", "t\tn\nr\r");
    CHECK_WRITES(fia_xml_text, "e\x1b[2J\x01", "e\\x1b[2J\\x01");
    CHECK_WRITES(fia_xml_text, "rev\xFF", "rev\xEF\xBF\xBD");
    CHECK_WRITES(fia_xml_text, "\xEF\xBF\xBE\xEF\xBF\xBD", "\\xef\\xbf\\xbe\xEF\xBF\xBD");
    CHECK_WRITES(fia_xml_text, "\xF0\x9F\x98\x80\x7f", "\xF0\x9F\x98\x80\x7f");
}

static void test_shown(void)
{
    CHECK_WRITES(fia_text_shown_string, "plain text\n\tok", "plain text\n\tok");
    CHECK_WRITES(fia_text_shown_string, "crlf\r\nlone\rx\r", "crlf\r\nlone\\x0dx\\x0d");
    CHECK_WRITES(fia_text_shown_string, "\x1b]0;title\x07\r", "\\x1b]0;title\\x07\\x0d");
    CHECK_WRITES(fia_text_shown_string, "del\x7f bad\xFF\xC3", "del\\x7f bad\\xff\\xc3");
    CHECK_WRITES(fia_text_shown_string, "csi\xC2\x9B" "2J nbsp\xC2\xA0", "csi\\u009b2J nbsp\xC2\xA0");
    CHECK_WRITES(fia_text_shown_string, "caf\xC3\xA9 \xF0\x9F\x98\x80", "caf\xC3\xA9 \xF0\x9F\x98\x80");
}

static int put_mem(void *out, const char *text, size_t len)
{
    return fwrite(text, 1, len, (FILE *)out) == len ? 0 : -1;
}

/* Byte by byte, a sequence cut at the end of a call is held back until the
 * next call completes it (or the final call shows it as bytes). */
static void test_shown_in_pieces(void)
{
    const char *in = "a\r\n\r\xC3\xA9\xF0\x9F\x98\x80\x1b\xE2\x82", *want =
        "a\r\n\\x0d\xC3\xA9\xF0\x9F\x98\x80\\x1b\\xe2\\x82";
    char *buf = NULL;
    size_t len = 0, n = strlen(in), held = 0;
    unsigned char pend[8];
    FILE *f = open_memstream(&buf, &len);
    for (size_t i = 0; i < n; i++) {
        pend[held++] = (unsigned char)in[i];
        long used = fia_text_shown(pend, held, 0, put_mem, f);
        CHECK(used >= 0 && (size_t)used <= held);
        memmove(pend, pend + used, held - (size_t)used);
        held -= (size_t)used;
    }
    CHECK_EQ_INT(held, 2); /* E2 82: a sequence's start, held back */
    CHECK_EQ_INT(fia_text_shown(pend, held, 1, put_mem, f), 2);
    fclose(f);
    CHECK_MSG(strcmp(buf, want) == 0, "pieces gave '%s'", buf);
    free(buf);
}

int main(void)
{
    test_utf8_len();
    test_json();
    test_xml();
    test_shown();
    test_shown_in_pieces();
    return check_summary();
}
