/* cli/json_read.c, the strict JSON reader judge reads status.json with:
 * what it must take, and everything RFC 8259 does not allow refused. */
#include "check.h"
#include "cli/json_read.c"

static int parses(const char *text)
{
    cli_json v;
    char why[200];
    int rc = cli_json_parse(text, strlen(text), &v, why, sizeof why);
    cli_json_free(&v);
    return rc == 0;
}

static void test_accepts(void)
{
    cli_json v;
    char why[200];
    const char *t = " {\"status\": \"error\", \"code\": 561002, \"x\": -1.5e2,"
                    " \"m\": \"a\\\"b\\u00e9\\ud83d\\ude00\\n\", \"l\": [1, [],"
                    " {}], \"t\": true, \"f\": false, \"z\": null}\r\n";
    CHECK_MSG(cli_json_parse(t, strlen(t), &v, why, sizeof why) == 0, "%s",
              why);
    CHECK(v.type == CLI_JSON_OBJECT && v.n == 8);
    const cli_json *c = cli_json_get(&v, "code");
    CHECK(c && c->type == CLI_JSON_NUMBER && c->integral &&
          c->number == 561002);
    c = cli_json_get(&v, "x");
    CHECK(c && !c->integral && c->number == -150);
    c = cli_json_get(&v, "m");
    CHECK(c && c->type == CLI_JSON_STRING &&
          strcmp(c->string, "a\"b\xc3\xa9\xf0\x9f\x98\x80\n") == 0);
    c = cli_json_get(&v, "l");
    CHECK(c && c->type == CLI_JSON_ARRAY && c->n == 3 &&
          c->items[1].type == CLI_JSON_ARRAY && c->items[2].n == 0);
    CHECK(cli_json_get(&v, "t")->boolean == 1);
    CHECK(cli_json_get(&v, "f")->type == CLI_JSON_BOOL);
    CHECK(cli_json_get(&v, "z")->type == CLI_JSON_NULL);
    CHECK(cli_json_get(&v, "nothing") == NULL);
    CHECK(cli_json_get(c, "x") == NULL); /* an array has no members */
    cli_json_free(&v);
    CHECK(parses("0") && parses("-0.0e+1") && parses("\"\"") &&
          parses("[[[[1]]]]"));
}

static void test_refuses(void)
{
    static const char *const bad[] = {
        "",  " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
        "{'a':1}", "[01]", "[1.]", "[.5]", "[1e]", "[+1]", "[NaN]",
        "[Infinity]", "[tru]", "[nul]", "\"abc", "\"a\tb\"", "\"\\x\"",
        "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
        "\"\\u0000\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xff\"",
        "{\"a\":1,\"a\":2}", "1 2", "{} x", "/* c */ 1", "[1] // c",
        "{\"a\":1}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(!parses(bad[i]), "accepted: %s", bad[i]);
    /* an embedded NUL byte is not the end of the text */
    cli_json v;
    char why[200];
    CHECK(cli_json_parse("{}\0x", 4, &v, why, sizeof why) != 0);
    CHECK(strstr(why, "byte 2") != NULL);
    CHECK(cli_json_parse("{\"a\":", 5, &v, why, sizeof why) != 0 &&
          v.type == CLI_JSON_NULL && v.n == 0);
}

static void test_depth(void)
{
    char deep[2 * CLI_JSON_MAX_DEPTH + 8], ok[2 * CLI_JSON_MAX_DEPTH + 8];
    size_t n = CLI_JSON_MAX_DEPTH + 1;
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    CHECK(!parses(deep));
    n = CLI_JSON_MAX_DEPTH;
    memset(ok, '[', n);
    memset(ok + n, ']', n);
    ok[2 * n] = '\0';
    CHECK(parses(ok));
}

int main(void)
{
    test_accepts();
    test_refuses();
    test_depth();
    return check_summary();
}
