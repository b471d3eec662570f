/* asm_checksum.S: no libc. Runs integer instruction families on pseudo-random operands and
 * prints one checksum per family. Results and the flags each instruction defines (never the
 * undefined ones) are folded in, so any difference from the real CPU changes a line.
 * Registers: r8/r9 operands, r10 a count, r12 loop counter, r13 generator, r14 checksum. */
        .intel_syntax noprefix

        .set CF, 0x001
        .set PF, 0x004
        .set AF, 0x010
        .set ZF, 0x040
        .set SF, 0x080
        .set OF, 0x800
        .set ARITH, CF|PF|AF|ZF|SF|OF
        .set LOGIC, CF|PF|ZF|SF|OF      /* AF undefined */
        .set ITERATIONS, 3000

/* Fold a register into the checksum. */
        .macro FOLD reg
        mov     rax, \reg
        call    mix
        .endm

/* Fold the flags named by mask. */
        .macro FOLDF mask
        pushfq
        pop     rax
        and     rax, \mask
        call    mix
        .endm

        .text
        .globl _start
_start:
        lea     r15, [rip + sections]
next_section:
        mov     rbx, [r15]              /* handler, or 0 at the end */
        test    rbx, rbx
        jz      done
        movabs  r13, 0x9e3779b97f4a7c15
        movabs  r14, 0xcbf29ce484222325
        mov     r12d, ITERATIONS
1:      call    operands
        call    rbx
        dec     r12d
        jnz     1b
        mov     rsi, [r15 + 8]          /* name */
        call    print_line
        add     r15, 16
        jmp     next_section
done:
        mov     eax, 231                /* exit_group(0) */
        xor     edi, edi
        syscall

/* xorshift64 in r13, result in rax */
rng:
        mov     rax, r13
        shl     rax, 13
        xor     r13, rax
        mov     rax, r13
        shr     rax, 7
        xor     r13, rax
        mov     rax, r13
        shl     rax, 17
        xor     r13, rax
        mov     rax, r13
        ret

/* r8, r9: random, a quarter of the time shifted right to make small values and edge cases;
 * r10: 2..63 */
operands:
        call    rng
        mov     r8, rax
        call    rng
        mov     r9, rax
        call    rng
        mov     rcx, rax
        shr     rcx, 8
        test    al, 3
        jnz     1f
        shr     r8, cl
1:      test    al, 12
        jnz     2f
        shr     rcx, 6
        shr     r9, cl
2:      test    al, 0x30
        jnz     3f
        neg     r9
3:      call    rng
        xor     edx, edx
        mov     ecx, 62
        div     rcx
        lea     r10, [rdx + 2]
        ret

/* checksum = rol(checksum ^ rax, 29) * FNV prime */
mix:
        xor     r14, rax
        rol     r14, 29
        movabs  rax, 0x100000001b3
        imul    r14, rax
        ret

sec_alu:
        mov     rdx, r8
        add     rdx, r9
        FOLDF   ARITH
        FOLD    rdx
        mov     rdx, r8
        sub     rdx, r9
        FOLDF   ARITH
        FOLD    rdx
        bt      r9, 5                   /* carry in from an operand bit */
        mov     rdx, r8
        adc     rdx, r9
        FOLDF   ARITH
        FOLD    rdx
        bt      r8, 7
        mov     rdx, r8
        sbb     rdx, r9
        FOLDF   ARITH
        FOLD    rdx
        bt      r8, 9
        mov     edx, r8d
        adc     edx, r9d
        FOLDF   ARITH
        FOLD    rdx
        mov     edx, r8d
        sub     dx, r9w
        FOLDF   ARITH
        FOLD    rdx
        mov     edx, r8d
        add     dl, r9b
        FOLDF   ARITH
        FOLD    rdx
        mov     rdx, r8
        mov     rcx, r9
        add     dh, cl                  /* high byte registers */
        FOLDF   ARITH
        sub     ch, dl
        FOLDF   ARITH
        xchg    dh, cl
        FOLD    rdx
        FOLD    rcx
        mov     rdx, r8
        and     rdx, r9
        FOLDF   LOGIC
        FOLD    rdx
        mov     rdx, r8
        or      edx, r9d
        FOLDF   LOGIC
        FOLD    rdx
        mov     rdx, r8
        xor     dx, r9w
        FOLDF   LOGIC
        FOLD    rdx
        test    r8, r9
        FOLDF   LOGIC
        cmp     r8d, r9d
        FOLDF   ARITH
        cmp     r8b, 0x80
        FOLDF   ARITH
        mov     rdx, r8
        neg     rdx
        FOLDF   ARITH
        FOLD    rdx
        mov     rdx, r8
        not     rdx
        FOLD    rdx
        stc
        mov     rdx, r8
        inc     rdx
        FOLDF   ARITH                   /* inc keeps CF: it must still be set */
        dec     edx
        FOLDF   ARITH
        FOLD    rdx
        mov     rdx, r8
        add     rdx, 0x7fffffff         /* sign-extended immediates */
        FOLDF   ARITH
        sub     rdx, -128
        FOLDF   ARITH
        and     edx, 0xfff0f0f0
        FOLDF   LOGIC
        FOLD    rdx
        lea     rdx, [r8 + r9 * 4 + 0x12345]
        FOLD    rdx
        lea     edx, [r8 + r9 * 8 - 1]
        FOLD    rdx
        /* memory operands */
        mov     [rip + scratch], r8
        add     [rip + scratch], r9
        FOLDF   ARITH
        sub     dword ptr [rip + scratch + 4], 3
        FOLDF   ARITH
        xor     [rip + scratch], r9w
        FOLDF   LOGIC
        mov     rdx, [rip + scratch]
        FOLD    rdx
        clc
        cmc
        FOLDF   CF
        ret

sec_shift:
        mov     rdx, r8
        shl     rdx, 1
        FOLDF   LOGIC
        FOLD    rdx
        mov     rdx, r8
        shr     rdx, 1
        FOLDF   LOGIC
        FOLD    rdx
        mov     rdx, r8
        sar     rdx, 1
        FOLDF   LOGIC
        FOLD    rdx
        mov     ecx, r10d               /* counts 2..63: OF undefined */
        mov     rdx, r8
        shl     rdx, cl
        FOLDF   CF|PF|ZF|SF
        FOLD    rdx
        mov     rdx, r8
        shr     rdx, cl
        FOLDF   CF|PF|ZF|SF
        FOLD    rdx
        mov     rdx, r8
        sar     rdx, cl
        FOLDF   CF|PF|ZF|SF
        FOLD    rdx
        and     ecx, 31
        jz      1f                      /* count 0 leaves the flags */
        cmp     ecx, 1
        je      1f
        mov     edx, r8d
        sar     edx, cl
        FOLDF   CF|PF|ZF|SF
        FOLD    rdx
1:      mov     edx, r8d
        shl     dx, 3
        FOLDF   PF|ZF|SF
        FOLD    rdx
        mov     edx, r8d
        shr     dl, 2
        FOLDF   CF|PF|ZF|SF
        FOLD    rdx
        mov     ecx, r10d
        mov     rdx, r8
        rol     rdx, cl
        FOLDF   CF
        FOLD    rdx
        mov     rdx, r8
        ror     rdx, cl
        FOLDF   CF
        FOLD    rdx
        mov     rdx, r8
        rol     rdx, 1
        FOLDF   CF|OF
        ror     edx, 1
        FOLDF   CF|OF
        FOLD    rdx
        bt      r9, 3
        mov     rdx, r8
        rcl     rdx, 1
        FOLDF   CF|OF
        rcr     rdx, cl
        FOLDF   CF
        FOLD    rdx
        bt      r9, 4
        mov     edx, r8d
        rcl     dx, 5
        FOLDF   CF
        rcr     dl, 3
        FOLDF   CF
        FOLD    rdx
        mov     rdx, r8
        shld    rdx, r9, cl
        FOLDF   CF|PF|ZF|SF
        FOLD    rdx
        mov     rdx, r8
        shrd    rdx, r9, 1
        FOLDF   CF|PF|ZF|SF|OF
        FOLD    rdx
        mov     edx, r8d
        shrd    edx, r9d, 7
        FOLDF   CF|PF|ZF|SF
        FOLD    rdx
        mov     [rip + scratch], r8
        shl     qword ptr [rip + scratch], cl
        FOLDF   CF|PF|ZF|SF
        ror     word ptr [rip + scratch + 2], 4
        FOLDF   CF
        mov     rdx, [rip + scratch]
        FOLD    rdx
        ret

sec_muldiv:
        mov     rax, r8
        mul     r9
        push    rax
        FOLDF   CF|OF
        pop     rax
        FOLD    rdx
        mov     rax, r8
        imul    r9
        push    rax
        FOLDF   CF|OF
        pop     rax
        FOLD    rdx
        mov     eax, r8d
        mul     r9d
        push    rax
        FOLDF   CF|OF
        pop     rax
        FOLD    rdx
        mov     eax, r8d
        imul    r9w
        push    rax
        FOLDF   CF|OF
        pop     rax
        FOLD    rdx
        mov     eax, r8d
        imul    r9b
        FOLD    rax
        mov     rdx, r8
        imul    rdx, r9
        FOLDF   CF|OF
        FOLD    rdx
        imul    rdx, r8, -12345
        FOLDF   CF|OF
        FOLD    rdx
        imul    edx, r9d, 100
        FOLDF   CF|OF
        FOLD    rdx
        /* unsigned divide of rdx:rax with rdx < divisor, so no #DE */
        mov     rcx, r9
        or      rcx, 1
        mov     rax, r8
        xor     edx, edx
        div     rcx
        FOLD    rdx
        mov     rdx, r8
        shr     rdx, 1
        mov     rax, r9
        mov     rcx, r8
        or      rcx, rdx
        bts     rcx, 63
        div     rcx
        push    rdx
        FOLD    rax
        pop     rdx
        FOLD    rdx
        /* signed divide: quotient fits because the dividend is a sign-extended rax */
        mov     rcx, r9
        or      rcx, 3                  /* never 0 or -1 ... */
        cmp     rcx, -1
        jne     1f
        mov     ecx, 7
1:      mov     rax, r8
        cqo
        idiv    rcx
        push    rdx
        FOLD    rax
        pop     rdx
        FOLD    rdx
        mov     eax, r8d
        cdq
        mov     ecx, r9d
        or      ecx, 5
        idiv    ecx
        push    rdx
        FOLD    rax
        pop     rdx
        FOLD    rdx
        mov     eax, r8d
        and     eax, 0xffff
        mov     cl, r9b
        or      cl, 0x81
        cmp     cl, -1
        jne     2f
        mov     cl, 0x83
2:      movsx   ax, al
        idiv    cl
        FOLD    rax
        movzx   eax, r8w
        xor     edx, edx
        mov     cx, r9w
        or      cx, 1
        div     cx
        shl     edx, 16
        or      eax, edx
        FOLD    rax
        ret

sec_bits:
        mov     rdx, r8
        bts     rdx, r9
        FOLDF   CF
        FOLD    rdx
        btr     rdx, r10
        FOLDF   CF
        btc     edx, 17
        FOLDF   CF
        bt      dx, 9
        FOLDF   CF
        FOLD    rdx
        mov     rdx, r8
        bts     rdx, 40
        bsf     rcx, rdx
        FOLDF   ZF
        FOLD    rcx
        bsr     rcx, rdx
        FOLDF   ZF
        FOLD    rcx
        mov     edx, r9d
        or      edx, 0x10000
        bsf     cx, dx
        FOLD    rcx
        bsr     ecx, edx
        FOLD    rcx
        xor     edx, edx
        bsf     rcx, rdx                /* zero source: only ZF is defined */
        FOLDF   ZF
        mov     rdx, r8
        bswap   rdx
        FOLD    rdx
        bswap   edx
        FOLD    rdx
        /* bit string in memory: the offset may pass the first qword */
        lea     rdi, [rip + bitmap]
        mov     [rdi], r8
        mov     [rdi + 8], r9
        mov     rcx, r10
        add     rcx, 30
        bts     [rdi], rcx
        FOLDF   CF
        btc     qword ptr [rdi + 8], 63
        FOLDF   CF
        btr     dword ptr [rdi], 3
        FOLDF   CF
        FOLD    [rdi]
        FOLD    [rdi + 8]
        mov     rdx, r8
        movsx   rcx, dl
        FOLD    rcx
        movsx   ecx, dx
        FOLD    rcx
        movsxd  rcx, edx
        FOLD    rcx
        movzx   ecx, dh
        FOLD    rcx
        movzx   rcx, dx
        FOLD    rcx
        mov     rax, r8
        cbw
        cwde
        cdqe
        FOLD    rax
        mov     rax, r9
        cwd
        FOLD    rdx
        mov     rax, r9
        cqo
        FOLD    rdx
        push    rbx
        lea     rbx, [rip + hex_digits]
        mov     eax, r8d
        and     eax, 15
        xlatb                           /* al = [rbx + al] */
        pop     rbx
        FOLD    rax
        ret

sec_cond:
        /* all sixteen conditions after one compare, into memory (setcc leaves the flags) */
        lea     rdi, [rip + conditions]
        cmp     r8, r9
        call    store_conditions
        cmp     r8d, r9d
        call    store_conditions
        cmp     r8w, r9w
        call    store_conditions
        test    r8b, r9b
        call    store_conditions
        mov     rdx, r10
        sub     r8b, r9b
        cmovo   rdx, r8
        cmovs   ecx, r9d
        cmovl   rdx, r9
        cmovbe  dx, r8w
        cmovp   rcx, r10
        cmovg   rdx, rcx
        FOLD    rdx
        cmp     r9, r10
        cmova   rdx, [rip + sections]
        cmovae  rcx, rdx
        cmovle  rdx, r8
        FOLD    rdx
        FOLD    rcx
        /* lahf/sahf round trip */
        add     r8, r9
        lahf
        movzx   edx, ah
        and     edx, 0xd5
        FOLD    rdx
        mov     eax, r9d
        mov     ah, al
        sahf
        FOLDF   CF|PF|AF|ZF|SF
        /* pushf/popf with the arithmetic flags chosen from an operand */
        mov     rdx, r9
        and     edx, ARITH
        or      edx, 2
        push    rdx
        popfq
        FOLDF   ARITH
        /* loop and jrcxz */
        mov     ecx, r10d
        xor     edx, edx
1:      add     edx, ecx
        loop    1b
        FOLD    rdx
        xor     ecx, ecx
        mov     edx, 1
        jrcxz   2f
        mov     edx, 2
2:      FOLD    rdx
        /* jumps on each condition, counted */
        xor     edx, edx
        cmp     r8, r10
        jl      3f
        add     edx, 1
3:      jg      4f
        add     edx, 2
4:      jb      5f
        add     edx, 4
5:      ja      6f
        add     edx, 8
6:      js      7f
        add     edx, 16
7:      jp      8f
        add     edx, 32
8:      FOLD    rdx
        ret

sec_string:
        /* fill the destination, copy forwards with a random length and alignments */
        lea     rdi, [rip + dst]
        mov     ecx, 64
        mov     rax, r8
        rep stosq
        mov     eax, r12d
        and     eax, 63
        lea     rdi, [rip + src]
        mov     [rdi + rax * 8], r9
        mov     rsi, rdi
        mov     eax, r9d
        and     eax, 7
        add     rsi, rax
        lea     rdi, [rip + dst]
        mov     eax, r8d
        and     eax, 15
        add     rdi, rax
        mov     rcx, r10
        shl     rcx, 2
        rep movsb
        /* backwards, overlapping */
        std
        lea     rsi, [rip + dst + 300]
        lea     rdi, [rip + dst + 310]
        mov     rcx, r10
        rep movsb
        lea     rsi, [rip + src + 200]
        lea     rdi, [rip + dst + 400]
        mov     ecx, 5
        rep movsq
        cld
        mov     eax, r9d
        lea     rdi, [rip + dst + 100]
        mov     ecx, 13
        rep stosw
        mov     al, r8b
        stosb
        /* compare: count left and flags tell where the first difference is */
        lea     rsi, [rip + src]
        lea     rdi, [rip + dst]
        mov     ecx, 256
        repe cmpsb
        FOLDF   ARITH
        FOLD    rcx
        lea     rsi, [rip + src]
        lea     rdi, [rip + src]
        mov     ecx, 32
        repe cmpsq
        FOLDF   ARITH
        FOLD    rcx
        /* scan for a byte of the first operand */
        mov     al, r8b
        lea     rdi, [rip + dst]
        mov     ecx, 512
        repne scasb
        FOLDF   ARITH
        FOLD    rcx
        mov     eax, r8d
        lea     rdi, [rip + dst + 2]
        mov     ecx, 100
        repe scasw
        FOLD    rcx
        /* sum the destination with lodsq */
        lea     rsi, [rip + dst]
        mov     ecx, 64
        xor     edx, edx
1:      lodsq
        add     rdx, rax
        rol     rdx, 3
        loop    1b
        FOLD    rdx
        lea     rsi, [rip + dst + 7]
        lodsb
        movzx   edx, al
        lodsw
        shl     edx, 16
        or      dx, ax
        lodsd
        xor     rdx, rax
        FOLD    rdx
        /* non-rep movs and cmps with segment-free addressing */
        lea     rsi, [rip + src]
        lea     rdi, [rip + dst]
        movsq
        movsd
        movsw
        movsb
        cmpsb
        FOLDF   ARITH
        lea     rdi, [rip + dst]
        FOLD    [rdi]
        FOLD    [rdi + 8]
        ret

sec_atomic:
        lea     rdi, [rip + scratch]
        mov     [rdi], r8
        mov     rax, r8
        lock cmpxchg [rdi], r9          /* equal: stores r9 */
        FOLDF   ARITH
        FOLD    [rdi]
        mov     rax, r10
        lock cmpxchg [rdi], r8          /* differs: loads into rax */
        FOLDF   ARITH
        FOLD    rax
        mov     rdx, r8
        mov     rax, r9
        cmpxchg edx, r10d
        FOLDF   ARITH
        FOLD    rdx
        FOLD    rax
        mov     rdx, r10
        lock xadd [rdi], rdx
        FOLDF   ARITH
        FOLD    rdx
        FOLD    [rdi]
        mov     edx, r9d
        xadd    dx, r8w
        FOLDF   ARITH
        FOLD    rdx
        mov     rdx, r8
        xchg    [rdi], rdx
        FOLD    rdx
        mov     rdx, r9
        xchg    rdx, r8
        FOLD    rdx
        FOLD    r8
        /* cmpxchg16b: once equal, once not */
        lea     rdi, [rip + pair]
        mov     [rdi], r8
        mov     [rdi + 8], r9
        mov     rax, r8
        mov     rdx, r9
        mov     rbx, r10
        mov     rcx, r12
        lock cmpxchg16b [rdi]
        FOLDF   ZF
        FOLD    [rdi]
        FOLD    [rdi + 8]
        mov     rax, r9
        lock cmpxchg16b [rdi]
        push    rdx
        FOLDF   ZF
        FOLD    rax
        pop     rdx
        FOLD    rdx
        lea     rbx, [rip + sec_atomic]  /* the caller keeps its handler in rbx */
        /* stack: enter/leave, push/pop of memory and immediates */
        enter   32, 0
        mov     [rbp - 8], r8
        push    qword ptr [rbp - 8]
        push    -5
        pop     rdx
        pop     rcx
        add     rdx, rcx
        push    dx
        pop     ax
        movzx   eax, ax
        leave
        FOLD    rdx
        ret

/* setcc of every condition to [rdi .. rdi+15], folded; the flags are the caller's */
store_conditions:
        seto    byte ptr [rdi + 0]
        setno   byte ptr [rdi + 1]
        setb    byte ptr [rdi + 2]
        setae   byte ptr [rdi + 3]
        sete    byte ptr [rdi + 4]
        setne   byte ptr [rdi + 5]
        setbe   byte ptr [rdi + 6]
        seta    byte ptr [rdi + 7]
        sets    byte ptr [rdi + 8]
        setns   byte ptr [rdi + 9]
        setp    byte ptr [rdi + 10]
        setnp   byte ptr [rdi + 11]
        setl    byte ptr [rdi + 12]
        setge   byte ptr [rdi + 13]
        setle   byte ptr [rdi + 14]
        setg    dl
        mov     [rdi + 15], dl
        FOLD    [rdi]
        FOLD    [rdi + 8]
        ret

/* Prints "name: <checksum in hex>\n"; rsi points at the name (NUL-terminated). */
print_line:
        lea     rdi, [rip + line]
1:      lodsb
        test    al, al
        jz      2f
        stosb
        jmp     1b
2:      mov     ax, 0x203a              /* ": " */
        stosw
        lea     rbx, [rip + hex_digits]
        mov     rdx, r14
        mov     ecx, 16
3:      rol     rdx, 4
        mov     eax, edx
        and     eax, 15
        mov     al, [rbx + rax]
        stosb
        loop    3b
        mov     al, 10
        stosb
        lea     rsi, [rip + line]
        mov     rdx, rdi
        sub     rdx, rsi
        mov     eax, 1
        mov     edi, 1
        syscall
        ret

        .section .rodata
hex_digits:     .ascii "0123456789abcdef"
name_alu:       .asciz "alu"
name_shift:     .asciz "shift/rotate"
name_muldiv:    .asciz "mul/div"
name_bits:      .asciz "bits/extend"
name_cond:      .asciz "setcc/cmov/jcc"
name_string:    .asciz "string"
name_atomic:    .asciz "atomic/stack"
        .balign 8
sections:
        .quad sec_alu, name_alu
        .quad sec_shift, name_shift
        .quad sec_muldiv, name_muldiv
        .quad sec_bits, name_bits
        .quad sec_cond, name_cond
        .quad sec_string, name_string
        .quad sec_atomic, name_atomic
        .quad 0, 0

        .bss
        .balign 16
pair:           .skip 16
scratch:        .skip 16
bitmap:         .skip 32
src:            .skip 1024
dst:            .skip 1024
line:           .skip 64
conditions:     .skip 16
        .section .note.GNU-stack, "", @progbits
