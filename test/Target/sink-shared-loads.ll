; The shared-load sinking Serialize runs for AMD (kiln::sinkSharedLoadsToUses),
; judged by execution: lli runs this program as written and after
; kiln-llvm-passes --sink-shared-loads, and both must print the same sums.
; @mma stands for a matrix instruction (a call that does not access memory).
; Four operand trees (two 16-byte reads of shared memory, shuffled into one
; 32-byte operand) are read before the first @mma; each moves to just before
; its first use, except the one whose source a store overwrites in between
; (moving it past the store would read the new value) and the one a store
; also uses before its call (it writes where the tree read, too).
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --sink-shared-loads %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=LOG < %t.log

; LOG: changed 1 function(s)
; CHECK-LABEL: define void @chain(
; %b stays before the store that overwrites its source.
; CHECK: %b0 = load <4 x i32>, ptr addrspace(3) @smem
; CHECK: store <4 x i32> splat (i32 7), ptr addrspace(3) @smem
; %sy stays: a store uses it (and writes shared memory) before its call.
; CHECK: %y0 = load
; CHECK: %acc1 = call <4 x float> @mma(<8 x i32> %b
; %a moves to its first use, the second call; %c to the third.
; CHECK-NEXT: %a0 = load
; CHECK-NEXT: %a1 = load
; CHECK-NEXT: %a = shufflevector
; CHECK-NEXT: %acc2 = call <4 x float> @mma(<8 x i32> %a
; CHECK-NEXT: %c1 = load
; CHECK-NEXT: %c0 = load
; CHECK-NEXT: %c = shufflevector
; CHECK-NEXT: %acc3 = call <4 x float> @mma(<8 x i32> %c
; CHECK-NEXT: store <8 x i32> %sy

@smem = internal addrspace(3) global [64 x <4 x i32>] zeroinitializer, align 16
@fmt = private constant [13 x i8] c"%f %f %f %f\0A\00"
declare i32 @printf(ptr, ...)

define <4 x float> @mma(<8 x i32> %x, <4 x float> %acc) #0 {
  %f = sitofp <8 x i32> %x to <8 x float>
  %lo = shufflevector <8 x float> %f, <8 x float> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %hi = shufflevector <8 x float> %f, <8 x float> poison, <4 x i32> <i32 4, i32 5, i32 6, i32 7>
  %m = fmul <4 x float> %lo, %hi
  %r = fadd <4 x float> %m, %acc
  ret <4 x float> %r
}

define void @chain(ptr %out) {
entry:
  %p1 = getelementptr <4 x i32>, ptr addrspace(3) @smem, i32 1
  %p2 = getelementptr <4 x i32>, ptr addrspace(3) @smem, i32 2
  %p3 = getelementptr <4 x i32>, ptr addrspace(3) @smem, i32 3
  %p4 = getelementptr <4 x i32>, ptr addrspace(3) @smem, i32 4
  %p5 = getelementptr <4 x i32>, ptr addrspace(3) @smem, i32 5
  %p6 = getelementptr <4 x i32>, ptr addrspace(3) @smem, i32 6
  %p7 = getelementptr <4 x i32>, ptr addrspace(3) @smem, i32 7
  %b0 = load <4 x i32>, ptr addrspace(3) @smem, align 16
  %b1 = load <4 x i32>, ptr addrspace(3) %p3, align 16
  %b = shufflevector <4 x i32> %b0, <4 x i32> %b1, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  store <4 x i32> <i32 7, i32 7, i32 7, i32 7>, ptr addrspace(3) @smem, align 16
  %a0 = load <4 x i32>, ptr addrspace(3) %p1, align 16
  %a1 = load <4 x i32>, ptr addrspace(3) %p2, align 16
  %a = shufflevector <4 x i32> %a0, <4 x i32> %a1, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %c0 = load <4 x i32>, ptr addrspace(3) %p4, align 16
  %c1 = load <4 x i32>, ptr addrspace(3) %p5, align 16
  %c = shufflevector <4 x i32> %c1, <4 x i32> %c0, <8 x i32> <i32 7, i32 6, i32 5, i32 4, i32 3, i32 2, i32 1, i32 0>
  %y0 = load <4 x i32>, ptr addrspace(3) %p6, align 16
  %y1 = load <4 x i32>, ptr addrspace(3) %p7, align 16
  %sy = shufflevector <4 x i32> %y0, <4 x i32> %y1, <8 x i32> <i32 0, i32 2, i32 4, i32 6, i32 1, i32 3, i32 5, i32 7>
  %acc1 = call <4 x float> @mma(<8 x i32> %b, <4 x float> zeroinitializer)
  %acc2 = call <4 x float> @mma(<8 x i32> %a, <4 x float> %acc1)
  %acc3 = call <4 x float> @mma(<8 x i32> %c, <4 x float> %acc2)
  store <8 x i32> %sy, ptr addrspace(3) %p6, align 16
  %acc4 = call <4 x float> @mma(<8 x i32> %a, <4 x float> %acc3)
  %acc5 = call <4 x float> @mma(<8 x i32> %sy, <4 x float> %acc4)
  store <4 x float> %acc5, ptr %out, align 16
  ret void
}

define i32 @main() {
entry:
  %out = alloca <4 x float>, align 16
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %i.next, %fill ]
  %h = mul i32 %i, 2654435761
  %v = lshr i32 %h, 27
  %q = getelementptr i32, ptr addrspace(3) @smem, i32 %i
  store i32 %v, ptr addrspace(3) %q, align 4
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 256
  br i1 %more, label %fill, label %run
run:
  call void @chain(ptr %out)
  %r = load <4 x float>, ptr %out
  %r0 = extractelement <4 x float> %r, i32 0
  %r1 = extractelement <4 x float> %r, i32 1
  %r2 = extractelement <4 x float> %r, i32 2
  %r3 = extractelement <4 x float> %r, i32 3
  %d0 = fpext float %r0 to double
  %d1 = fpext float %r1 to double
  %d2 = fpext float %r2 to double
  %d3 = fpext float %r3 to double
  %pr = call i32 (ptr, ...) @printf(ptr @fmt, double %d0, double %d1, double %d2, double %d3)
  ret i32 0
}

attributes #0 = { nounwind willreturn memory(none) }
