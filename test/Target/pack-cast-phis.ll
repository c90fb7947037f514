; kiln::packNarrowPhis on phis used only through one narrowing cast other than fptrunc:
; instcombine makes a loop's i8 tile (phis of `fptosi float to i8`, a quantized tile carried to
; the next iteration) a cast of float phis, four times the registers, and likewise i16 phis of
; `trunc i32 to i16`. The pass makes them i8 / i16 phis again, cast at the end of each
; predecessor, and packs them to words. Phis with two different casts, or a cast and another
; user, stay. Judged by execution: lli before and after must print the same.
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --pack-narrow-phis %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s < %t.ll

; CHECK-LABEL: define void @carry(
; CHECK-NOT: phi float
; CHECK-NOT: phi i8
; CHECK-NOT: phi i16
; CHECK: ret void
; CHECK-LABEL: define void @mixed(
; CHECK-COUNT-4: phi float
; CHECK-NOT: phi float
; CHECK: ret void
; CHECK-LABEL: define i32 @main(

@fmt = private constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)

define void @carry(ptr %out, i32 %iters) {
entry:
  br label %loop
loop:
  %it = phi i32 [ 0, %entry ], [ %it.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %f.0 = phi float [ -1.000000e+01, %entry ], [ %g.0, %loop ]
  %f.1 = phi float [ -7.000000e+00, %entry ], [ %g.1, %loop ]
  %f.2 = phi float [ -4.000000e+00, %entry ], [ %g.2, %loop ]
  %f.3 = phi float [ -1.000000e+00, %entry ], [ %g.3, %loop ]
  %f.4 = phi float [ 2.000000e+00, %entry ], [ %g.4, %loop ]
  %f.5 = phi float [ 5.000000e+00, %entry ], [ %g.5, %loop ]
  %f.6 = phi float [ 8.000000e+00, %entry ], [ %g.6, %loop ]
  %f.7 = phi float [ 1.100000e+01, %entry ], [ %g.7, %loop ]
  %w.0 = phi i32 [ 7, %entry ], [ %x.0, %loop ]
  %w.1 = phi i32 [ 1007, %entry ], [ %x.1, %loop ]
  %w.2 = phi i32 [ 2007, %entry ], [ %x.2, %loop ]
  %w.3 = phi i32 [ 3007, %entry ], [ %x.3, %loop ]
  %w.4 = phi i32 [ 4007, %entry ], [ %x.4, %loop ]
  %w.5 = phi i32 [ 5007, %entry ], [ %x.5, %loop ]
  %w.6 = phi i32 [ 6007, %entry ], [ %x.6, %loop ]
  %w.7 = phi i32 [ 7007, %entry ], [ %x.7, %loop ]
  %q.0 = fptosi float %f.0 to i8
  %z.0 = zext i8 %q.0 to i32
  %t.0 = trunc i32 %w.0 to i16
  %y.0 = zext i16 %t.0 to i32
  %q.1 = fptosi float %f.1 to i8
  %z.1 = zext i8 %q.1 to i32
  %t.1 = trunc i32 %w.1 to i16
  %y.1 = zext i16 %t.1 to i32
  %q.2 = fptosi float %f.2 to i8
  %z.2 = zext i8 %q.2 to i32
  %t.2 = trunc i32 %w.2 to i16
  %y.2 = zext i16 %t.2 to i32
  %q.3 = fptosi float %f.3 to i8
  %z.3 = zext i8 %q.3 to i32
  %t.3 = trunc i32 %w.3 to i16
  %y.3 = zext i16 %t.3 to i32
  %q.4 = fptosi float %f.4 to i8
  %z.4 = zext i8 %q.4 to i32
  %t.4 = trunc i32 %w.4 to i16
  %y.4 = zext i16 %t.4 to i32
  %q.5 = fptosi float %f.5 to i8
  %z.5 = zext i8 %q.5 to i32
  %t.5 = trunc i32 %w.5 to i16
  %y.5 = zext i16 %t.5 to i32
  %q.6 = fptosi float %f.6 to i8
  %z.6 = zext i8 %q.6 to i32
  %t.6 = trunc i32 %w.6 to i16
  %y.6 = zext i16 %t.6 to i32
  %q.7 = fptosi float %f.7 to i8
  %z.7 = zext i8 %q.7 to i32
  %t.7 = trunc i32 %w.7 to i16
  %y.7 = zext i16 %t.7 to i32
  %s.0 = add i32 %acc, %z.0
  %r.0 = xor i32 %s.0, %y.0
  %s.1 = add i32 %r.0, %z.1
  %r.1 = xor i32 %s.1, %y.1
  %s.2 = add i32 %r.1, %z.2
  %r.2 = xor i32 %s.2, %y.2
  %s.3 = add i32 %r.2, %z.3
  %r.3 = xor i32 %s.3, %y.3
  %s.4 = add i32 %r.3, %z.4
  %r.4 = xor i32 %s.4, %y.4
  %s.5 = add i32 %r.4, %z.5
  %r.5 = xor i32 %s.5, %y.5
  %s.6 = add i32 %r.5, %z.6
  %r.6 = xor i32 %s.6, %y.6
  %s.7 = add i32 %r.6, %z.7
  %r.7 = xor i32 %s.7, %y.7
  %acc.next = mul i32 %r.7, 3
  %itf = sitofp i32 %it to float
  %e.0 = sitofp i8 %q.3 to float
  %m.0 = fmul float %e.0, 5.000000e-01
  %g.0 = fadd float %m.0, %itf
  %v.0 = zext i16 %t.5 to i32
  %x.0 = mul i32 %v.0, 2654435761
  %e.1 = sitofp i8 %q.4 to float
  %m.1 = fmul float %e.1, 5.000000e-01
  %g.1 = fadd float %m.1, %itf
  %v.1 = zext i16 %t.6 to i32
  %x.1 = mul i32 %v.1, 2654435761
  %e.2 = sitofp i8 %q.5 to float
  %m.2 = fmul float %e.2, 5.000000e-01
  %g.2 = fadd float %m.2, %itf
  %v.2 = zext i16 %t.7 to i32
  %x.2 = mul i32 %v.2, 2654435761
  %e.3 = sitofp i8 %q.6 to float
  %m.3 = fmul float %e.3, 5.000000e-01
  %g.3 = fadd float %m.3, %itf
  %v.3 = zext i16 %t.0 to i32
  %x.3 = mul i32 %v.3, 2654435761
  %e.4 = sitofp i8 %q.7 to float
  %m.4 = fmul float %e.4, 5.000000e-01
  %g.4 = fadd float %m.4, %itf
  %v.4 = zext i16 %t.1 to i32
  %x.4 = mul i32 %v.4, 2654435761
  %e.5 = sitofp i8 %q.0 to float
  %m.5 = fmul float %e.5, 5.000000e-01
  %g.5 = fadd float %m.5, %itf
  %v.5 = zext i16 %t.2 to i32
  %x.5 = mul i32 %v.5, 2654435761
  %e.6 = sitofp i8 %q.1 to float
  %m.6 = fmul float %e.6, 5.000000e-01
  %g.6 = fadd float %m.6, %itf
  %v.6 = zext i16 %t.3 to i32
  %x.6 = mul i32 %v.6, 2654435761
  %e.7 = sitofp i8 %q.2 to float
  %m.7 = fmul float %e.7, 5.000000e-01
  %g.7 = fadd float %m.7, %itf
  %v.7 = zext i16 %t.4 to i32
  %x.7 = mul i32 %v.7, 2654435761
  %it.next = add i32 %it, 1
  %done = icmp eq i32 %it.next, %iters
  br i1 %done, label %exit, label %loop
exit:
  store i32 %acc.next, ptr %out
  ret void
}

define void @mixed(ptr %out, i32 %iters) {
entry:
  br label %loop
loop:
  %it = phi i32 [ 0, %entry ], [ %it.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %f.0 = phi float [ -1.000000e+01, %entry ], [ %g.0, %loop ]
  %f.1 = phi float [ -7.000000e+00, %entry ], [ %g.1, %loop ]
  %f.2 = phi float [ -4.000000e+00, %entry ], [ %g.2, %loop ]
  %f.3 = phi float [ -1.000000e+00, %entry ], [ %g.3, %loop ]
  %f.4 = phi float [ 2.000000e+00, %entry ], [ %g.4, %loop ]
  %f.5 = phi float [ 5.000000e+00, %entry ], [ %g.5, %loop ]
  %f.6 = phi float [ 8.000000e+00, %entry ], [ %g.6, %loop ]
  %f.7 = phi float [ 1.100000e+01, %entry ], [ %g.7, %loop ]
  %w.0 = phi i32 [ 7, %entry ], [ %x.0, %loop ]
  %w.1 = phi i32 [ 1007, %entry ], [ %x.1, %loop ]
  %w.2 = phi i32 [ 2007, %entry ], [ %x.2, %loop ]
  %w.3 = phi i32 [ 3007, %entry ], [ %x.3, %loop ]
  %w.4 = phi i32 [ 4007, %entry ], [ %x.4, %loop ]
  %w.5 = phi i32 [ 5007, %entry ], [ %x.5, %loop ]
  %w.6 = phi i32 [ 6007, %entry ], [ %x.6, %loop ]
  %w.7 = phi i32 [ 7007, %entry ], [ %x.7, %loop ]
  %q.0 = fptosi float %f.0 to i8
  %z.0 = zext i8 %q.0 to i32
  %t.0 = trunc i32 %w.0 to i16
  %y.0 = zext i16 %t.0 to i32
  %q.1 = fptosi float %f.1 to i8
  %o.1 = fptosi float %f.1 to i16
  %oz.1 = sext i16 %o.1 to i32
  %z.1 = zext i8 %q.1 to i32
  %t.1 = trunc i32 %w.1 to i16
  %y.1 = zext i16 %t.1 to i32
  %q.2 = fptosi float %f.2 to i8
  %z.2 = zext i8 %q.2 to i32
  %t.2 = trunc i32 %w.2 to i16
  %y.2 = zext i16 %t.2 to i32
  %q.3 = fptosi float %f.3 to i8
  %o.3 = fptosi float %f.3 to i16
  %oz.3 = sext i16 %o.3 to i32
  %z.3 = zext i8 %q.3 to i32
  %t.3 = trunc i32 %w.3 to i16
  %y.3 = zext i16 %t.3 to i32
  %q.4 = fptosi float %f.4 to i8
  %z.4 = zext i8 %q.4 to i32
  %t.4 = trunc i32 %w.4 to i16
  %y.4 = zext i16 %t.4 to i32
  %q.5 = fptosi float %f.5 to i8
  %o.5 = fptosi float %f.5 to i16
  %oz.5 = sext i16 %o.5 to i32
  %z.5 = zext i8 %q.5 to i32
  %t.5 = trunc i32 %w.5 to i16
  %y.5 = zext i16 %t.5 to i32
  %q.6 = fptosi float %f.6 to i8
  %z.6 = zext i8 %q.6 to i32
  %t.6 = trunc i32 %w.6 to i16
  %y.6 = zext i16 %t.6 to i32
  %q.7 = fptosi float %f.7 to i8
  %o.7 = fptosi float %f.7 to i16
  %oz.7 = sext i16 %o.7 to i32
  %z.7 = zext i8 %q.7 to i32
  %t.7 = trunc i32 %w.7 to i16
  %y.7 = zext i16 %t.7 to i32
  %s.0 = add i32 %acc, %z.0
  %r.0 = xor i32 %s.0, %y.0
  %s.1 = add i32 %r.0, %z.1
  %r.1 = xor i32 %s.1, %y.1
  %s.2 = add i32 %r.1, %z.2
  %r.2 = xor i32 %s.2, %y.2
  %s.3 = add i32 %r.2, %z.3
  %r.3 = xor i32 %s.3, %y.3
  %s.4 = add i32 %r.3, %z.4
  %r.4 = xor i32 %s.4, %y.4
  %s.5 = add i32 %r.4, %z.5
  %r.5 = xor i32 %s.5, %y.5
  %s.6 = add i32 %r.5, %z.6
  %r.6 = xor i32 %s.6, %y.6
  %s.7 = add i32 %r.6, %z.7
  %r.7 = xor i32 %s.7, %y.7
  %acc.next = mul i32 %r.7, 3
  %itf = sitofp i32 %it to float
  %e.0 = sitofp i8 %q.3 to float
  %m.0 = fmul float %e.0, 5.000000e-01
  %g.0 = fadd float %m.0, %itf
  %v.0 = zext i16 %t.5 to i32
  %x.0 = mul i32 %v.0, 2654435761
  %e.1 = sitofp i8 %q.4 to float
  %m.1 = fmul float %e.1, 5.000000e-01
  %g.1 = fadd float %m.1, %itf
  %v.1 = zext i16 %t.6 to i32
  %x.1 = mul i32 %v.1, 2654435761
  %e.2 = sitofp i8 %q.5 to float
  %m.2 = fmul float %e.2, 5.000000e-01
  %g.2 = fadd float %m.2, %itf
  %v.2 = zext i16 %t.7 to i32
  %x.2 = mul i32 %v.2, 2654435761
  %e.3 = sitofp i8 %q.6 to float
  %m.3 = fmul float %e.3, 5.000000e-01
  %g.3 = fadd float %m.3, %itf
  %v.3 = zext i16 %t.0 to i32
  %x.3 = mul i32 %v.3, 2654435761
  %e.4 = sitofp i8 %q.7 to float
  %m.4 = fmul float %e.4, 5.000000e-01
  %g.4 = fadd float %m.4, %itf
  %v.4 = zext i16 %t.1 to i32
  %x.4 = mul i32 %v.4, 2654435761
  %e.5 = sitofp i8 %q.0 to float
  %m.5 = fmul float %e.5, 5.000000e-01
  %g.5 = fadd float %m.5, %itf
  %v.5 = zext i16 %t.2 to i32
  %x.5 = mul i32 %v.5, 2654435761
  %e.6 = sitofp i8 %q.1 to float
  %m.6 = fmul float %e.6, 5.000000e-01
  %g.6 = fadd float %m.6, %itf
  %v.6 = zext i16 %t.3 to i32
  %x.6 = mul i32 %v.6, 2654435761
  %e.7 = sitofp i8 %q.2 to float
  %m.7 = fmul float %e.7, 5.000000e-01
  %g.7 = fadd float %m.7, %itf
  %v.7 = zext i16 %t.4 to i32
  %x.7 = mul i32 %v.7, 2654435761
  %it.next = add i32 %it, 1
  %done = icmp eq i32 %it.next, %iters
  br i1 %done, label %exit, label %loop
exit:
  store i32 %acc.next, ptr %out
  ret void
}

define i32 @main() {
  %out = alloca i32
  call void @carry(ptr %out, i32 37)
  %r = load i32, ptr %out
  %p = call i32 (ptr, ...) @printf(ptr @fmt, i32 %r)
  call void @mixed(ptr %out, i32 37)
  %r2 = load i32, ptr %out
  %p2 = call i32 (ptr, ...) @printf(ptr @fmt, i32 %r2)
  ret i32 0
}
