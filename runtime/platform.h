/*
 * The operating-system interface: the only code that writes text.
 */
#ifndef MV_PLATFORM_H
#define MV_PLATFORM_H

#include <stddef.h>

/* Bracket every batch of text writes done by one API call.  Nothing else
 * may write text between them; a protocol that has to stop or fence other
 * threads belongs here. */
void mv_text_begin(void);
void mv_text_end(void);

/* Overwrites len bytes of code at dst with src and makes the processor see
 * them.  Returns 0, or a negative errno value (already reported). */
int mv_text_write(void *dst, const void *src, size_t len);

/* Copies len bytes from src, which may be unmapped.  Returns 0, or a
 * negative errno value (not reported). */
int mv_mem_read(void *dst, const void *src, size_t len);

#endif
