.intel_syntax noprefix
# One GHASH step of the GCM specification: X = (X xor C) * H in GF(2^128), with
# PCLMULQDQ (Intel's GCM white paper, algorithm 5); rdi = H, rsi = X (in and out),
# rdx = C, all 16 bytes in GCM's byte order; then `done`.
start:
  movdqu xmm15, [rip + bswap]
  movdqu xmm0, [rsi]
  movdqu xmm10, [rdx]
  pxor xmm0, xmm10
  pshufb xmm0, xmm15
  movdqu xmm1, [rdi]
  pshufb xmm1, xmm15
  movdqa xmm3, xmm0
  pclmulqdq xmm3, xmm1, 0x00
  movdqa xmm4, xmm0
  pclmulqdq xmm4, xmm1, 0x10
  movdqa xmm5, xmm0
  pclmulqdq xmm5, xmm1, 0x01
  movdqa xmm6, xmm0
  pclmulqdq xmm6, xmm1, 0x11
  pxor xmm4, xmm5
  movdqa xmm5, xmm4
  pslldq xmm5, 8
  psrldq xmm4, 8
  pxor xmm3, xmm5
  pxor xmm6, xmm4
  movdqa xmm7, xmm3
  psrld xmm7, 31
  movdqa xmm8, xmm6
  psrld xmm8, 31
  pslld xmm3, 1
  pslld xmm6, 1
  movdqa xmm9, xmm7
  psrldq xmm9, 12
  pslldq xmm8, 4
  pslldq xmm7, 4
  por xmm3, xmm7
  por xmm6, xmm8
  por xmm6, xmm9
  movdqa xmm7, xmm3
  pslld xmm7, 31
  movdqa xmm8, xmm3
  pslld xmm8, 30
  movdqa xmm9, xmm3
  pslld xmm9, 25
  pxor xmm7, xmm8
  pxor xmm7, xmm9
  movdqa xmm8, xmm7
  psrldq xmm8, 4
  pslldq xmm7, 12
  pxor xmm3, xmm7
  movdqa xmm2, xmm3
  psrld xmm2, 1
  movdqa xmm4, xmm3
  psrld xmm4, 2
  movdqa xmm5, xmm3
  psrld xmm5, 7
  pxor xmm2, xmm4
  pxor xmm2, xmm5
  pxor xmm2, xmm8
  pxor xmm3, xmm2
  pxor xmm6, xmm3
  pshufb xmm6, xmm15
  movdqu [rsi], xmm6
done:
  ud2
.align 16
bswap: .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
