# asm_unimplemented.S: an instruction outside the CPU model (AVX-512's VADDPS on ZMM):
# under x64emu the guest dies of SIGILL and the message names its address, bytes and text.
.globl _start
_start:
  vaddps %zmm1, %zmm0, %zmm0
  mov $60, %eax
  xor %edi, %edi
  syscall
