# asm_unimplemented.S: an instruction outside the CPU model (AVX's VZEROUPPER): under
# x64emu the guest dies of SIGILL and the message names its address, bytes and text.
.globl _start
_start:
  vzeroupper
  mov $60, %eax
  xor %edi, %edi
  syscall
