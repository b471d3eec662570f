/* asm_hello.S: no libc. _start writes a line with raw syscalls, checks the ABI's entry
 * state (16-byte aligned stack, argc at the stack pointer) and leaves with exit_group(7). */
        .intel_syntax noprefix
        .section .text
        .globl _start
_start:
        mov     rbx, rsp                /* entry rsp: argc, then argv */
        mov     eax, 1                  /* write(1, greeting, length) */
        mov     edi, 1
        lea     rsi, [rip + greeting]
        mov     edx, greeting_end - greeting
        syscall

        lea     rsi, [rip + aligned_text]
        mov     edx, aligned_end - aligned_text
        test    bl, 15
        jz      1f
        lea     rsi, [rip + misaligned_text]
        mov     edx, misaligned_end - misaligned_text
1:      mov     eax, 1
        mov     edi, 1
        syscall

        /* argc as one digit when it is below ten */
        mov     rax, [rbx]
        cmp     rax, 9
        ja      2f
        add     al, '0'
        mov     [rip + argc_digit], al
        mov     eax, 1
        mov     edi, 1
        lea     rsi, [rip + argc_text]
        mov     edx, argc_end - argc_text
        syscall

        /* argv[argc] must be NULL and envp follow it */
        mov     rcx, [rbx]
        cmp     qword ptr [rbx + 8 + rcx * 8], 0
        jne     2f
        mov     eax, 1
        mov     edi, 2                  /* to stderr */
        lea     rsi, [rip + null_text]
        mov     edx, null_end - null_text
        syscall

2:      mov     eax, 231                /* exit_group(7) */
        mov     edi, 7
        syscall
        hlt                             /* not reached */

        .section .rodata
greeting:        .ascii "Hello from assembly, no libc\n"
greeting_end:
aligned_text:    .ascii "stack aligned to 16 at entry\n"
aligned_end:
misaligned_text: .ascii "stack NOT aligned to 16 at entry\n"
misaligned_end:
null_text:       .ascii "argv ends with NULL\n"
null_end:
        .data
argc_text:       .ascii "argc = "
argc_digit:      .ascii "?\n"
argc_end:
        .section .note.GNU-stack, "", @progbits
