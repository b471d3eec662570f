.intel_syntax noprefix
# AES-128 encryption of one block with AES-NI (Intel's AES-NI white paper, figure 7 key
# expansion): rdi = key, rsi = input, rdx = output; then `done`.
start:
  movdqu xmm1, [rdi]
  movdqu xmm0, [rsi]
  pxor xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x01
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x02
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x04
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x08
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x10
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x20
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x40
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x80
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x1b
  call expand
  aesenc xmm0, xmm1
  aeskeygenassist xmm2, xmm1, 0x36
  call expand
  aesenclast xmm0, xmm1
  movdqu [rdx], xmm0
done:
  ud2
expand:
  pshufd xmm2, xmm2, 0xff
  movdqa xmm3, xmm1
  pslldq xmm3, 4
  pxor xmm1, xmm3
  pslldq xmm3, 4
  pxor xmm1, xmm3
  pslldq xmm3, 4
  pxor xmm1, xmm3
  pxor xmm1, xmm2
  ret
