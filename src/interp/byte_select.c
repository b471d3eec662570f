/* byte_select.c: the constant index vectors of byte_select.h. */
#include "byte_select.h"

#define DWORD_OF(sel) 4 * (sel), 4 * (sel) + 1, 4 * (sel) + 2, 4 * (sel) + 3
#define PSHUFD(imm) {DWORD_OF((imm) & 3), DWORD_OF((imm) >> 2 & 3), DWORD_OF((imm) >> 4 & 3), \
                     DWORD_OF((imm) >> 6 & 3)},
#define FROM4(m, b) m(b) m((b) + 1) m((b) + 2) m((b) + 3)
#define FROM16(m, b) FROM4(m, b) FROM4(m, (b) + 4) FROM4(m, (b) + 8) FROM4(m, (b) + 12)
#define FROM64(m, b) FROM16(m, b) FROM16(m, (b) + 16) FROM16(m, (b) + 32) FROM16(m, (b) + 48)

const uint8_t pshufd_index[256][16] = {FROM64(PSHUFD, 0) FROM64(PSHUFD, 64) FROM64(PSHUFD, 128)
                                           FROM64(PSHUFD, 192)};

#define WINDOW(k) (16 <= (k) && (k) < 32 ? (k) - 16 : 0x80),
const uint8_t byte_window[64] = {FROM64(WINDOW, 0)};
