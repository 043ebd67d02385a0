#include "textflag.h"

// The loops that go over a large buffer once (the newline count, the NUL
// look-up, the pair filters) prefetch the bytes a page (4 KiB) ahead: a
// buffer that is a memory map of a file (internal/grepfs) arrives from
// memory, page by page, and the hardware prefetcher stops at each page's
// end (a prefetch also walks the page table early, where a load would
// wait for it). It made a literal search of a 345 MB mapped file 0.82 of
// its time, and of one read into a buffer 0.94. A prefetch never faults:
// past the buffer's end it costs nothing but itself.


// func nlScanBlocks(p []byte) (n int, nul bool)
// AVX2: the newlines of p counted and its NUL bytes looked for, 64 bytes a
// round. Each newline found adds 1 to a byte of Y6 or Y7 (a compare's
// 0xFF subtracted), so p holds at most 255 rounds; VPSADBW adds the
// bytes up at the end. Y5 keeps the bytes' minimum: 0 where a NUL was.
TEXT ·nlScanBlocks(SB), NOSPLIT, $0-33
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), BX
	LEAQ (SI)(BX*1), R8
	MOVL $0x0a, AX
	MOVQ AX, X0
	VPBROADCASTB X0, Y0 // '\n' x32
	VPXOR   Y1, Y1, Y1  // zero
	VPCMPEQB Y5, Y5, Y5 // the minimum so far: 0xFF
	VPXOR   Y6, Y6, Y6  // newline counts, bytes
	VPXOR   Y7, Y7, Y7
	CMPQ SI, R8
	JAE  done
loop:
	PREFETCHT0 4096(SI)
	VMOVDQU (SI), Y2
	VMOVDQU 32(SI), Y3
	VPCMPEQB Y0, Y2, Y8
	VPCMPEQB Y0, Y3, Y9
	VPMINUB  Y2, Y5, Y5
	VPMINUB  Y3, Y5, Y5
	VPSUBB   Y8, Y6, Y6
	VPSUBB   Y9, Y7, Y7
	ADDQ $64, SI
	CMPQ SI, R8
	JB   loop
done:
	VPSADBW Y1, Y6, Y6
	VPSADBW Y1, Y7, Y7
	VPADDQ  Y7, Y6, Y6
	VEXTRACTI128 $1, Y6, X7
	VPADDQ  X7, X6, X6
	VPSHUFD $0x4e, X6, X7
	VPADDQ  X7, X6, X6
	MOVQ    X6, AX
	MOVQ    AX, n+24(FP)
	VPCMPEQB Y1, Y5, Y5
	VPTEST  Y5, Y5
	SETNE   nul+32(FP)
	VZEROUPPER
	RET

// func nulBlocks(p []byte) bool
// AVX2: whether p (its length a multiple of 128) holds a NUL, 128 bytes a
// round: the bytes' minimum is 0 where one is.
TEXT ·nulBlocks(SB), NOSPLIT, $0-25
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), BX
	LEAQ (SI)(BX*1), R8
	VPXOR Y0, Y0, Y0
	CMPQ SI, R8
	JAE  nnone
nloop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4160(SI)
	VMOVDQU (SI), Y1
	VPMINUB 32(SI), Y1, Y1
	VMOVDQU 64(SI), Y2
	VPMINUB 96(SI), Y2, Y2
	VPMINUB Y1, Y2, Y1
	VPCMPEQB Y0, Y1, Y1
	VPTEST  Y1, Y1
	JNZ     nfound
	ADDQ    $128, SI
	CMPQ    SI, R8
	JB      nloop
nnone:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET
nfound:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

// func byteLinesBlocks(p []byte, b byte, not bool, carry uint64) (lines, nls int, out uint64)
// AVX2: over p (its length a multiple of 64), the newlines that end a line
// holding the byte b (not: a byte other than b; '\n' is neither), and all the newlines, 64
// bytes a round. With E the mask of b and N that of '\n' in a round,
// ^N + E sets the bit of each newline whose line holds a b (the carry of
// a b runs up the line's non-newline bits to its newline and stops
// there), so popcount((^N + E) & N) counts those lines; the carry out of
// a round is a b in the line still open (carry in and out: 0 or 1).
TEXT ·byteLinesBlocks(SB), NOSPLIT, $0-64
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), BX
	LEAQ (SI)(BX*1), R8
	VPBROADCASTB b+24(FP), Y0
	MOVL $0x0a, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1 // '\n' x32
	MOVBQZX not+25(FP), R13
	NEGQ R13 // not: all ones, E flipped
	MOVQ carry+32(FP), CX
	XORQ AX, AX // lines
	XORQ DX, DX // newlines
	CMPQ SI, R8
	JAE  bdone
bloop:
	PREFETCHT0 4096(SI)
	VMOVDQU (SI), Y2
	VMOVDQU 32(SI), Y3
	VPCMPEQB Y0, Y2, Y4
	VPCMPEQB Y0, Y3, Y5
	VPCMPEQB Y1, Y2, Y6
	VPCMPEQB Y1, Y3, Y7
	VPMOVMSKB Y4, R9
	VPMOVMSKB Y5, R10
	SHLQ $32, R10
	ORQ  R10, R9
	XORQ R13, R9 // E
	VPMOVMSKB Y6, R11
	VPMOVMSKB Y7, R10
	SHLQ $32, R10
	ORQ  R10, R11 // N
	POPCNTQ R11, R10
	ADDQ R10, DX
	MOVQ R11, R12
	NOTQ R12
	ANDQ R12, R9 // (a newline is not a byte a line holds)
	BTQ  $0, CX // CF = carry
	ADCQ R9, R12
	SETCS CX
	ANDQ R11, R12
	POPCNTQ R12, R12
	ADDQ R12, AX
	ADDQ $64, SI
	CMPQ SI, R8
	JB   bloop
bdone:
	MOVQ AX, lines+40(FP)
	MOVQ DX, nls+48(FP)
	MOVBQZX CX, CX
	MOVQ CX, out+56(FP)
	VZEROUPPER
	RET
