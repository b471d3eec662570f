/* native.S: runs generated instruction bytes on the host CPU between a full register load
 * and a full register save (the Regs layout of diff.h: r[0..15] at 0..120, rflags at 128).
 *
 * void diff_native_call(Regs *regs, const void *code)
 * The code ends with RET; it is entered by CALL with every GPR but RSP and the
 * arithmetic/direction flags taken from regs. RSP stays the harness's own. */
        .text
        .globl  diff_native_call
        .type   diff_native_call, @function
diff_native_call:
        push    %rbx
        push    %rbp
        push    %r12
        push    %r13
        push    %r14
        push    %r15
        push    %rdi                    /* regs */
        push    %rsi                    /* code, called through (%rsp) */

        pushq   128(%rdi)
        popfq
        mov     8(%rdi), %rcx
        mov     16(%rdi), %rdx
        mov     24(%rdi), %rbx
        mov     40(%rdi), %rbp
        mov     48(%rdi), %rsi
        mov     64(%rdi), %r8
        mov     72(%rdi), %r9
        mov     80(%rdi), %r10
        mov     88(%rdi), %r11
        mov     96(%rdi), %r12
        mov     104(%rdi), %r13
        mov     112(%rdi), %r14
        mov     120(%rdi), %r15
        mov     0(%rdi), %rax
        mov     56(%rdi), %rdi          /* last: it was the pointer */

        call    *(%rsp)

        pushfq                          /* before anything can touch the flags */
        push    %rax
        mov     24(%rsp), %rax          /* regs, above the saved rax, rflags and code */
        mov     %rcx, 8(%rax)
        mov     %rdx, 16(%rax)
        mov     %rbx, 24(%rax)
        mov     %rbp, 40(%rax)
        mov     %rsi, 48(%rax)
        mov     %rdi, 56(%rax)
        mov     %r8, 64(%rax)
        mov     %r9, 72(%rax)
        mov     %r10, 80(%rax)
        mov     %r11, 88(%rax)
        mov     %r12, 96(%rax)
        mov     %r13, 104(%rax)
        mov     %r14, 112(%rax)
        mov     %r15, 120(%rax)
        pop     %rcx
        mov     %rcx, 0(%rax)
        pop     %rcx
        mov     %rcx, 128(%rax)
        cld                             /* the ABI wants DF clear on return */
        add     $16, %rsp

        pop     %r15
        pop     %r14
        pop     %r13
        pop     %r12
        pop     %rbp
        pop     %rbx
        ret
        .size   diff_native_call, .-diff_native_call

        .section .note.GNU-stack,"",@progbits
