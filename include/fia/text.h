/* Text that came from input (case files, file names, a plug-in's messages,
 * a store's rows) written for a consumer that requires more of it than the
 * input promised: JSON (UTF-8, control characters escaped), XML 1.0 (UTF-8,
 * no C0 control but tab, newline and carriage return) and a terminal (no
 * byte that starts a control sequence).  One escaper per consumer, each
 * validating UTF-8 the same way (fia_utf8_len), used by every writer of
 * that consumer in cli/ and store/. */
#ifndef FIA_TEXT_H
#define FIA_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The length (1..4) of the well-formed UTF-8 sequence at p, which has
 * avail bytes (avail >= 1), or 0 when the bytes there are not one: RFC 3629
 * table 3-7, so no overlong form, no surrogate, nothing above U+10FFFF; a
 * sequence cut by avail is not one either. */
size_t fia_utf8_len(const unsigned char *p, size_t avail);

/* s as a JSON string with its quotes (RFC 8259): a well-formed UTF-8
 * sequence is copied; every byte that is not part of one becomes \ufffd
 * (U+FFFD, the replacement character); '"' and '\\' are escaped, newline
 * and tab as \n and \t, every other C0 control and DEL as \u00XX, so one
 * value stays on one line.  NULL writes "". */
void fia_json_string(FILE *f, const char *s);

/* s as XML 1.0 character data or an attribute value (the same escaping
 * serves both): the five special characters as entities; a well-formed
 * UTF-8 sequence copied unless it is a character XML 1.0 forbids; a byte
 * that is not part of a well-formed sequence as U+FFFD; a forbidden
 * character (C0 controls but tab, newline and carriage return, U+FFFE,
 * U+FFFF) cannot be written in XML 1.0 at all, not even as a reference,
 * so it is shown as the text \xHH (its UTF-8 bytes, as fia_text_shown
 * shows them).  NULL writes nothing. */
void fia_xml_text(FILE *f, const char *s);

/* The n bytes at p as a terminal may show them: printable text and
 * well-formed UTF-8 unchanged, newline, tab and CR LF unchanged; every other C0
 * control, DEL and each byte that is not part of a well-formed sequence as
 * the four characters \xHH (ESC is \x1b), a C1 control (U+0080..U+009F,
 * which terminals also obey) as \u00HH.  When final is 0, a sequence cut
 * at the end of the n bytes is left unwritten (its bytes come back with
 * the next call); the number of bytes consumed is returned.  Escapes go
 * to out through put (out, text, length); put returns 0, or -1 to stop
 * (then -1 is returned). */
long fia_text_shown(const unsigned char *p, size_t n, int final,
                    int (*put)(void *out, const char *text, size_t len),
                    void *out);

/* s written to f as fia_text_shown shows it (the whole string). */
void fia_text_shown_string(FILE *f, const char *s);

#endif
