#include "textflag.h"

// The loops that go over a large buffer once (the newline count, the NUL
// look-up, the pair filters) prefetch the bytes a page (4 KiB) ahead: a
// buffer that is a memory map of a file (internal/grepfs) arrives from
// memory, page by page, and the hardware prefetcher stops at each page's
// end (a prefetch also walks the page table early, where a load would
// wait for it). It made a literal search of a 345 MB mapped file 0.82 of
// its time, and of one read into a buffer 0.94. A prefetch never faults:
// past the buffer's end it costs nothing but itself.

// BROADCAST fills the 16 bytes of reg with the byte arg.
#define BROADCAST(arg, reg) \
	MOVBLZX arg, AX; \
	MOVQ AX, reg; \
	PUNPCKLBW reg, reg; \
	PUNPCKLBW reg, reg; \
	PSHUFL $0, reg, reg

// func indexPairBlocks(hay []byte, n int, b1, b2, m1, m2 byte, d int) int
// SSE2: 16 positions a round; (hay[i]|m1 == b1) && (hay[i+d]|m2 == b2).
TEXT ·indexPairBlocks(SB), NOSPLIT, $0-56
	MOVQ hay_base+0(FP), SI
	MOVQ n+24(FP), BX
	MOVQ d+40(FP), DX
	// X0 = b1 x16, X1 = b2 x16, X4 = m1 x16, X5 = m2 x16
	BROADCAST(b1+32(FP), X0)
	BROADCAST(b2+33(FP), X1)
	BROADCAST(m1+34(FP), X4)
	BROADCAST(m2+35(FP), X5)
	MOVQ SI, DI
	LEAQ (SI)(BX*1), R8 // end of the positions
loop:
	CMPQ DI, R8
	JAE notfound
	MOVOU (DI), X2
	MOVOU (DI)(DX*1), X3
	POR X4, X2
	POR X5, X3
	PCMPEQB X0, X2
	PCMPEQB X1, X3
	PAND X3, X2
	PMOVMSKB X2, R10
	TESTL R10, R10
	JNZ found
	ADDQ $16, DI
	JMP loop
found:
	BSFL R10, R10
	SUBQ SI, DI
	ADDQ R10, DI
	MOVQ DI, ret+48(FP)
	RET
notfound:
	MOVQ $-1, ret+48(FP)
	RET

// func indexPairBlocksAVX2(hay []byte, n int, b1, b2, m1, m2 byte, d int) int
// AVX2: 64 positions a round, then 32; n is a multiple of 32.
TEXT ·indexPairBlocksAVX2(SB), NOSPLIT, $0-56
	MOVQ hay_base+0(FP), SI
	MOVQ n+24(FP), BX
	MOVQ d+40(FP), DX
	VPBROADCASTB b1+32(FP), Y0
	VPBROADCASTB b2+33(FP), Y1
	VPBROADCASTB m1+34(FP), Y4
	VPBROADCASTB m2+35(FP), Y5
	MOVQ SI, DI
	LEAQ (SI)(BX*1), R8 // end of the positions
	LEAQ -64(R8), R9    // the last start of a 64-position round
loop64:
	CMPQ DI, R9
	JA   tail32
	PREFETCHT0 4096(DI)
	VMOVDQU (DI), Y2
	VMOVDQU 32(DI), Y6
	VMOVDQU (DI)(DX*1), Y3
	VMOVDQU 32(DI)(DX*1), Y7
	VPOR    Y4, Y2, Y2
	VPOR    Y4, Y6, Y6
	VPOR    Y5, Y3, Y3
	VPOR    Y5, Y7, Y7
	VPCMPEQB Y0, Y2, Y2
	VPCMPEQB Y0, Y6, Y6
	VPCMPEQB Y1, Y3, Y3
	VPCMPEQB Y1, Y7, Y7
	VPAND   Y3, Y2, Y2
	VPAND   Y7, Y6, Y6
	VPOR    Y2, Y6, Y8
	VPTEST  Y8, Y8
	JNZ     found64
	ADDQ    $64, DI
	JMP     loop64
found64:
	VPMOVMSKB Y2, R10
	TESTL     R10, R10
	JNZ       found
	VPMOVMSKB Y6, R10
	ADDQ      $32, DI
	JMP       found
tail32:
	CMPQ DI, R8
	JAE  notfound
	VMOVDQU (DI), Y2
	VMOVDQU (DI)(DX*1), Y3
	VPOR    Y4, Y2, Y2
	VPOR    Y5, Y3, Y3
	VPCMPEQB Y0, Y2, Y2
	VPCMPEQB Y1, Y3, Y3
	VPAND   Y3, Y2, Y2
	VPMOVMSKB Y2, R10
	TESTL   R10, R10
	JNZ     found
	ADDQ    $32, DI
	JMP     tail32
found:
	VZEROUPPER
	BSFL R10, R10
	SUBQ SI, DI
	ADDQ R10, DI
	MOVQ DI, ret+48(FP)
	RET
notfound:
	VZEROUPPER
	MOVQ $-1, ret+48(FP)
	RET

// func indexPairExactAVX2(hay []byte, n int, b1, b2, m1, m2 byte, d int) int
// indexPairBlocksAVX2 for m1 = m2 = 0 (no case folded): each compare reads
// its bytes itself (one instruction, not a load, an OR and a compare), 64
// positions a round, then 32; n is a multiple of 32.
TEXT ·indexPairExactAVX2(SB), NOSPLIT, $0-56
	MOVQ hay_base+0(FP), SI
	MOVQ n+24(FP), BX
	MOVQ d+40(FP), DX
	VPBROADCASTB b1+32(FP), Y0
	VPBROADCASTB b2+33(FP), Y1
	MOVQ SI, DI
	LEAQ (SI)(DX*1), R11 // DI + d, kept apace
	LEAQ (SI)(BX*1), R8  // end of the positions
	LEAQ -64(R8), R9     // the last start of a 64-position round
	CMPQ DI, R9
	JA   xtail32
xloop64:
	PREFETCHT0 4096(DI)
	VPCMPEQB (DI), Y0, Y2
	VPCMPEQB 32(DI), Y0, Y6
	VPCMPEQB (R11), Y1, Y3
	VPCMPEQB 32(R11), Y1, Y7
	VPAND    Y3, Y2, Y2
	VPAND    Y7, Y6, Y6
	VPOR     Y2, Y6, Y8
	VPTEST   Y8, Y8
	JNZ      xfound64
	ADDQ     $64, DI
	ADDQ     $64, R11
	CMPQ     DI, R9
	JBE      xloop64
xtail32:
	CMPQ DI, R8
	JAE  xnotfound
	VPCMPEQB (DI), Y0, Y2
	VPCMPEQB (R11), Y1, Y3
	VPAND    Y3, Y2, Y2
	VPMOVMSKB Y2, R10
	TESTL    R10, R10
	JNZ      xfound
	ADDQ     $32, DI
	ADDQ     $32, R11
	JMP      xtail32
xfound64:
	VPMOVMSKB Y2, R10
	TESTL     R10, R10
	JNZ       xfound
	VPMOVMSKB Y6, R10
	ADDQ      $32, DI
xfound:
	VZEROUPPER
	BSFL R10, R10
	SUBQ SI, DI
	ADDQ R10, DI
	MOVQ DI, ret+48(FP)
	RET
xnotfound:
	VZEROUPPER
	MOVQ $-1, ret+48(FP)
	RET

// func indexPairExact3AVX2(hay []byte, n int, b1, b2, b3 byte, d, d3 int) int
// indexPairExactAVX2 that checks a third byte, hay[i+d3] == b3 (d3 may be
// negative: hay is a window of a larger buffer that holds the byte), at
// each position the pair finds before it returns it, so that a pair that
// is common in the text (u...m of "func main": 110,000 times in 345 MB
// of Go, for 2,500 matches) costs no return to Go. n is a multiple of 32.
TEXT ·indexPairExact3AVX2(SB), NOSPLIT, $0-64
	MOVQ hay_base+0(FP), SI
	MOVQ n+24(FP), BX
	MOVQ d+40(FP), DX
	MOVQ d3+48(FP), R13
	VPBROADCASTB b1+32(FP), Y0
	VPBROADCASTB b2+33(FP), Y1
	MOVQ SI, DI
	LEAQ (SI)(DX*1), R11 // DI + d, kept apace
	LEAQ (SI)(BX*1), R8  // end of the positions
	LEAQ -64(R8), R9     // the last start of a 64-position round
	MOVBLZX b3+34(FP), DX
	CMPQ DI, R9
	JA   ttail32
tloop64:
	PREFETCHT0 4096(DI)
	VPCMPEQB (DI), Y0, Y2
	VPCMPEQB 32(DI), Y0, Y6
	VPCMPEQB (R11), Y1, Y3
	VPCMPEQB 32(R11), Y1, Y7
	VPAND    Y3, Y2, Y2
	VPAND    Y7, Y6, Y6
	VPOR     Y2, Y6, Y8
	VPTEST   Y8, Y8
	JNZ      tcand64
tnext64:
	ADDQ     $64, DI
	ADDQ     $64, R11
	CMPQ     DI, R9
	JBE      tloop64
ttail32:
	CMPQ DI, R8
	JAE  tnotfound
	VPCMPEQB (DI), Y0, Y2
	VPCMPEQB (R11), Y1, Y3
	VPAND    Y3, Y2, Y2
	VPMOVMSKB Y2, R10
	TESTQ    R10, R10
	JNZ      tcheck32
tnext32:
	ADDQ     $32, DI
	ADDQ     $32, R11
	JMP      ttail32
tcand64:
	VPMOVMSKB Y2, R10
	VPMOVMSKB Y6, AX
	SHLQ      $32, AX
	ORQ       AX, R10
tcheck64:
	BSFQ    R10, CX
	LEAQ    (DI)(CX*1), R12
	MOVBLZX (R12)(R13*1), AX
	CMPL    AX, DX
	JEQ     thit
	BTRQ    CX, R10
	TESTQ   R10, R10
	JNZ     tcheck64
	JMP     tnext64
tcheck32:
	BSFQ    R10, CX
	LEAQ    (DI)(CX*1), R12
	MOVBLZX (R12)(R13*1), AX
	CMPL    AX, DX
	JEQ     thit
	BTRQ    CX, R10
	TESTQ   R10, R10
	JNZ     tcheck32
	JMP     tnext32
thit:
	VZEROUPPER
	SUBQ SI, R12
	MOVQ R12, ret+56(FP)
	RET
tnotfound:
	VZEROUPPER
	MOVQ $-1, ret+56(FP)
	RET
