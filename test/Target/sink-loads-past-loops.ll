; kiln::sinkLoadsPastLoops (Serialize, AMD, before sinkWideningToUses), judged
; by execution: lli runs this program as written and after
; kiln-llvm-passes --sink-loads-past-loops, and both must print the same
; numbers. @scaled loads four scales and a value before a loop that
; accumulates and writes another buffer, and applies two scales after it.
; The scales %s (noalias: the loop cannot write them) move, with the address
; %sp only they read, to just before their first use after the loop (their
; 128 bits no longer live across the loop, in place of the 96 of %scale and
; %row), past the loop's barrier (the fences of the sync scope given as the
; barrier's, and the store they bracket). The value %t, read from the buffer
; the loop writes, stays where it is. In @barrier the scale stays: its 32
; bits are fewer than the 64 of the pointer it would keep live instead.
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --sink-loads-past-loops --barrier-fence-scope=singlethread %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=LOG < %t.log

; LOG: changed 1 function(s)
; CHECK-LABEL: define float @scaled(
; CHECK: entry:
; CHECK-NOT: %s =
; CHECK: %t = load float, ptr %out
; CHECK: exit:
; CHECK-NEXT: %sp = getelementptr float, ptr %scale, i32 %row
; CHECK-NEXT: %s = load <4 x float>, ptr %sp
; CHECK-NEXT: %s0 = extractelement <4 x float> %s, i64 0
; CHECK-LABEL: define float @barrier(
; CHECK: entry:
; CHECK: %s = load float

@fmt = private constant [10 x i8] c"%g %g %g\0A\00"
declare i32 @printf(ptr, ...)

define float @scaled(ptr noalias %scale, ptr noalias %x, ptr noalias %out, i32 %row, i64 %n) {
entry:
  %sp = getelementptr float, ptr %scale, i32 %row
  %s = load <4 x float>, ptr %sp, align 4
  %t = load float, ptr %out
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ %t, %entry ], [ %acc.next, %loop ]
  %xp = getelementptr float, ptr %x, i64 %i
  %xv = load float, ptr %xp
  %acc.next = fadd float %acc, %xv
  fence syncscope("singlethread") release
  store float %acc.next, ptr %out
  fence syncscope("singlethread") acquire
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %s0 = extractelement <4 x float> %s, i64 0
  %s1 = extractelement <4 x float> %s, i64 1
  %r0 = fmul float %acc.next, %s0
  %r = fadd float %r0, %s1
  ret float %r
}

define float @barrier(ptr noalias %scale, ptr noalias %x, i64 %n) {
entry:
  %s = load float, ptr %scale
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %xp = getelementptr float, ptr %x, i64 %i
  %xv = load float, ptr %xp
  %acc.next = fadd float %acc, %xv
  fence release
  fence acquire
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = fmul float %acc.next, %s
  ret float %r
}

define i32 @main() {
  %scale = alloca [4 x float]
  %x = alloca [4 x float]
  %out = alloca float
  store <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, ptr %scale, align 4
  store <4 x float> <float 0.5, float 1.5, float 2.5, float 3.5>, ptr %x, align 4
  store float 10.0, ptr %out
  %a = call float @scaled(ptr %scale, ptr %x, ptr %out, i32 0, i64 4)
  %o = load float, ptr %out
  %b = call float @barrier(ptr %scale, ptr %x, i64 3)
  %ad = fpext float %a to double
  %od = fpext float %o to double
  %bd = fpext float %b to double
  call i32 (ptr, ...) @printf(ptr @fmt, double %ad, double %od, double %bd)
  ret i32 0
}
