# mem_hook_guest.s: guest code for the memory-hook tests of test_api.c, copied into guest
# memory and run with RBX at a 4 KiB data page. Each labelled instruction makes the
# accesses its comment lists (R/W, size, address), in that order.
        .intel_syntax noprefix
        .section .rodata
        .globl mh_code, mh_store, mh_rmw, mh_push, mh_pop, mh_xload, mh_xstore, mh_fld
        .globl mh_fstp, mh_rep, mh_fxsave, mh_xsave, mh_call, mh_ret, mh_over, mh_end
mh_code:
        mov rax, [rbx]                  # R 8 data+0
mh_store:
        mov [rbx + 8], eax              # W 4 data+8
mh_rmw:
        add byte ptr [rbx + 16], 1      # R 1, W 1 data+16
mh_push:
        push rax                        # W 8 rsp-8
mh_pop:
        pop rcx                         # R 8 rsp-8
mh_xload:
        movdqu xmm0, [rbx + 32]         # R 16 data+32
mh_xstore:
        movups [rbx + 48], xmm0         # W 16 data+48
mh_fld:
        fld tbyte ptr [rbx + 64]        # R 10 data+64
mh_fstp:
        fstp tbyte ptr [rbx + 80]       # W 10 data+80
        lea rsi, [rbx + 96]             # no access
        lea rdi, [rbx + 100]
        mov ecx, 3
mh_rep:
        rep movsb                       # R 1 data+96, W 1 data+100; +97, +101; +98, +102
mh_fxsave:
        fxsave [rbx + 512]              # W 416 data+512
        mov r8, rax                     # kept for the end
        mov eax, 2                      # XSAVE's RFBM: the SSE component
        xor edx, edx
mh_xsave:
        xsave [rbx + 1024]              # W 8 data+1048 (MXCSR, MXCSR_MASK), W 256
                                        # data+1184 (XMM0-15), R 8 and W 8 data+1536
                                        # (XSTATE_BV); no other byte of the area
        mov rax, r8
mh_call:
        call mh_ret                     # W 8 rsp-8: the address of the jmp
        jmp mh_over
mh_ret:
        ret                             # R 8 rsp-8
mh_over:
        mov rdx, [rbx + 4]              # R 8 data+4
mh_end:
        ud2
        .section .note.GNU-stack, "", @progbits
