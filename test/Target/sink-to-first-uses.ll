; kiln::sinkToFirstUses (Serialize, AMD, after sinkWideningToUses), judged by
; execution: lli runs this program as written and after
; kiln-llvm-passes --sink-to-first-uses, and both must print the same numbers.
; The block computes an elementwise chain the way the lowering emits it, one
; operation over all elements before the next: four scale products, four
; multiplies, four truncations, then four stores. Each computation moves to
; just before its first user, so that one element's chain runs at a time. A
; product that two multiplies read stays where it is: both are its users, and
; it moves only to the first. A truncation whose operand only it reads stays by
; its load: moved down, it would keep the wider operand live instead.
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --sink-to-first-uses %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=LOG < %t.log

; LOG: changed 2 function(s)
; CHECK-LABEL: define void @chain(
; CHECK: %a = load <4 x float>
; CHECK: %b = load float
; CHECK-NEXT: %v = load <2 x float>
; CHECK-NEXT: %n = fptrunc <2 x float> %v to <2 x half>
; CHECK: %x0 = extractelement <4 x float> %acc, i64 0
; CHECK-NEXT: %a0 = extractelement <4 x float> %a, i64 0
; CHECK-NEXT: %s0 = fmul float %a0, %b
; CHECK-NEXT: %p0 = fmul float %x0, %s0
; CHECK-NEXT: %t0 = fptrunc float %p0 to half
; CHECK-NEXT: store half %t0
; CHECK: %x1 = extractelement <4 x float> %acc, i64 1
; CHECK-NEXT: %a1 = extractelement <4 x float> %a, i64 1
; CHECK-NEXT: %s1 = fmul float %a1, %b
; CHECK-NEXT: %p1 = fmul float %x1, %s1
; CHECK-NEXT: %t1 = fptrunc float %p1 to half
; CHECK-NEXT: store half %t1
; CHECK: %s2 = fmul float %a2, %b
; CHECK-NEXT: %p2 = fmul float %x2, %s2
; CHECK: %x3 = extractelement <4 x float> %acc, i64 3
; CHECK-NEXT: %p3 = fmul float %x3, %s2
; CHECK-NEXT: %t3 = fptrunc float %p3 to half
; CHECK-NEXT: store half %t3
; CHECK: store <2 x half> %n

@fmt = private constant [19 x i8] c"%f %f %f %f %f %f\0A\00"
declare i32 @printf(ptr, ...)

define void @chain(ptr %accp, ptr %ap, ptr %bp, ptr %vp, ptr %out) {
entry:
  %acc = load <4 x float>, ptr %accp, align 16
  %a = load <4 x float>, ptr %ap, align 16
  %b = load float, ptr %bp, align 4
  %v = load <2 x float>, ptr %vp, align 8
  %n = fptrunc <2 x float> %v to <2 x half>
  %a0 = extractelement <4 x float> %a, i64 0
  %a1 = extractelement <4 x float> %a, i64 1
  %a2 = extractelement <4 x float> %a, i64 2
  %s0 = fmul float %a0, %b
  %s1 = fmul float %a1, %b
  %s2 = fmul float %a2, %b
  %x0 = extractelement <4 x float> %acc, i64 0
  %x1 = extractelement <4 x float> %acc, i64 1
  %x2 = extractelement <4 x float> %acc, i64 2
  %x3 = extractelement <4 x float> %acc, i64 3
  %p0 = fmul float %x0, %s0
  %p1 = fmul float %x1, %s1
  %p2 = fmul float %x2, %s2
  %p3 = fmul float %x3, %s2
  %t0 = fptrunc float %p0 to half
  %t1 = fptrunc float %p1 to half
  %t2 = fptrunc float %p2 to half
  %t3 = fptrunc float %p3 to half
  %o1 = getelementptr half, ptr %out, i64 1
  %o2 = getelementptr half, ptr %out, i64 2
  %o3 = getelementptr half, ptr %out, i64 3
  store half %t0, ptr %out, align 2
  store half %t1, ptr %o1, align 2
  store half %t2, ptr %o2, align 2
  store half %t3, ptr %o3, align 2
  %o4 = getelementptr half, ptr %out, i64 4
  store <2 x half> %n, ptr %o4, align 2
  ret void
}

define i32 @main() {
  %accp = alloca <4 x float>, align 16
  %ap = alloca <4 x float>, align 16
  %bp = alloca float, align 4
  %vp = alloca <2 x float>, align 8
  %out = alloca [6 x half], align 8
  store <4 x float> <float 1.5, float -2.0, float 3.25, float 0.75>, ptr %accp, align 16
  store <4 x float> <float 0.5, float 2.0, float -1.0, float 8.0>, ptr %ap, align 16
  store float 3.0, ptr %bp, align 4
  store <2 x float> <float 0.125, float -6.5>, ptr %vp, align 8
  call void @chain(ptr %accp, ptr %ap, ptr %bp, ptr %vp, ptr %out)
  %h0 = load half, ptr %out, align 2
  %q1 = getelementptr half, ptr %out, i64 1
  %h1 = load half, ptr %q1, align 2
  %q2 = getelementptr half, ptr %out, i64 2
  %h2 = load half, ptr %q2, align 2
  %q3 = getelementptr half, ptr %out, i64 3
  %h3 = load half, ptr %q3, align 2
  %d0 = fpext half %h0 to double
  %d1 = fpext half %h1 to double
  %d2 = fpext half %h2 to double
  %d3 = fpext half %h3 to double
  %q4 = getelementptr half, ptr %out, i64 4
  %h4 = load half, ptr %q4, align 2
  %q5 = getelementptr half, ptr %out, i64 5
  %h5 = load half, ptr %q5, align 2
  %d4 = fpext half %h4 to double
  %d5 = fpext half %h5 to double
  call i32 (ptr, ...) @printf(ptr @fmt, double %d0, double %d1, double %d2, double %d3,
                              double %d4, double %d5)
  ret i32 0
}
