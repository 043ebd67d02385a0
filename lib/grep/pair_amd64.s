#include "textflag.h"

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
