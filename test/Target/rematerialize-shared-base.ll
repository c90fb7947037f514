; The shared array's address read afresh per block (kiln::rematerializeSharedBase,
; which Serialize runs for NVIDIA with an inline-assembly read), judged by
; execution: lli runs this program as written and after kiln-llvm-passes, with
; @reread standing for the read, and both must print the same values. In every
; block but the entry, the uses that need the address in a register (a
; run-time offset from it, a call's operand, a constant expression over it)
; take one read placed before the first of them; the address operands of
; loads and stores and the operands of intrinsics keep the constant, which
; the code generator folds into the instruction.
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --rematerialize-shared-base=smem --shared-base-reader=reread %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=LOG < %t.log

; LOG: changed 1 function(s)

@smem = addrspace(3) global [64 x i32] zeroinitializer
@fmt = private constant [12 x i8] c"%d %d %lld\0A\00"

declare i32 @printf(ptr, ...)
declare void @llvm.memset.p3.i64(ptr addrspace(3), i8, i64, i1)

define ptr addrspace(3) @reread() noinline {
  ret ptr addrspace(3) @smem
}

; Prints where `p` points, as an offset from the array.
define void @where(i64 %p) noinline {
  %base = ptrtoint ptr addrspace(3) @smem to i64
  %off = sub i64 %p, %base
  %f = getelementptr i8, ptr @fmt, i64 0
  call i32 (ptr, ...) @printf(ptr %f, i32 -1, i32 -1, i64 %off)
  ret void
}

; CHECK-LABEL: define i32 @main(
; The entry block is left as it is.
; CHECK: entry:
; CHECK-NOT: @reread
; CHECK: br label %loop
define i32 @main() {
entry:
  store i32 7, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 4)
  %e = getelementptr i32, ptr addrspace(3) @smem, i32 5
  store i32 9, ptr addrspace(3) %e
  br label %loop

; The loop's run-time offset takes a read; the constant-address load does not.
; CHECK: loop:
; CHECK: %i = phi
; CHECK-NEXT: %[[B1:.*]] = call ptr addrspace(3) @reread()
; CHECK-NEXT: %p = getelementptr i32, ptr addrspace(3) %[[B1]], i32 %i
; CHECK: load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 4)
; CHECK-NOT: @reread
; CHECK: br i1
loop:
  %i = phi i32 [ 8, %entry ], [ %i.next, %loop ]
  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %i
  %c = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 4)
  %v = add i32 %c, %i
  store i32 %v, ptr addrspace(3) %p
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, 16
  br i1 %done, label %tail, label %loop

; The epilogue: one read before the first use, shared by the call's operand
; (a constant expression, rebuilt over the read) and the run-time offset; the
; intrinsic and the store's constant address keep @smem.
; CHECK: tail:
; CHECK-NEXT: %k = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 20)
; CHECK-NEXT: call void @llvm.memset.p3.i64(ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 128)
; CHECK-NEXT: %[[B2:.*]] = call ptr addrspace(3) @reread()
; CHECK-NEXT: %[[G:.*]] = getelementptr i8, ptr addrspace(3) %[[B2]], i32 40
; CHECK-NEXT: %[[A:.*]] = ptrtoint ptr addrspace(3) %[[G]] to i64
; CHECK-NEXT: call void @where(i64 %[[A]])
; CHECK-NEXT: %q = getelementptr i32, ptr addrspace(3) %[[B2]], i32 %k
; CHECK-NOT: @reread
; CHECK: store i32 3, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 8)
tail:
  %k = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 20)
  call void @llvm.memset.p3.i64(ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 128), i8 0, i64 16, i1 false)
  call void @where(i64 ptrtoint (ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 40) to i64))
  %q = getelementptr i32, ptr addrspace(3) @smem, i32 %k
  %x = load i32, ptr addrspace(3) %q
  store i32 3, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 8)
  %y0 = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 8)
  %y1 = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 60)
  %y = add i32 %y0, %y1
  %f = getelementptr i8, ptr @fmt, i64 0
  call i32 (ptr, ...) @printf(ptr %f, i32 %x, i32 %y, i64 0)
  ret i32 0
}
