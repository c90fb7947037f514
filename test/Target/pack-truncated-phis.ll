; kiln::packNarrowPhis on float phis used only through a truncation: LLVM's
; instcombine turns a loop's bf16/half tile (phi of truncated values) into a
; truncation of a phi of floats, twice the registers. The pass makes them half
; phis again, truncated at the end of each predecessor, and packs them two to
; a word. Judged by execution: lli before and after must print the same.
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --pack-narrow-phis %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s < %t.ll

; CHECK-LABEL: define void @carry(
; CHECK-NOT: phi float
; CHECK: phi i32
; CHECK-NOT: phi float
; CHECK: ret void

@fmt = private constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)

define void @carry(ptr %out, i32 %iters) {
entry:
  br label %loop
loop:
  %it = phi i32 [ 0, %entry ], [ %it.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %f.0 = phi float [ 2.500000e-01, %entry ], [ %g.0, %loop ]
  %f.1 = phi float [ 7.500000e-01, %entry ], [ %g.1, %loop ]
  %f.2 = phi float [ 1.250000e+00, %entry ], [ %g.2, %loop ]
  %f.3 = phi float [ 1.750000e+00, %entry ], [ %g.3, %loop ]
  %f.4 = phi float [ 2.250000e+00, %entry ], [ %g.4, %loop ]
  %f.5 = phi float [ 2.750000e+00, %entry ], [ %g.5, %loop ]
  %f.6 = phi float [ 3.250000e+00, %entry ], [ %g.6, %loop ]
  %f.7 = phi float [ 3.750000e+00, %entry ], [ %g.7, %loop ]
  %h.0 = fptrunc float %f.0 to half
  %b.0 = bitcast half %h.0 to i16
  %z.0 = zext i16 %b.0 to i32
  %h.1 = fptrunc float %f.1 to half
  %b.1 = bitcast half %h.1 to i16
  %z.1 = zext i16 %b.1 to i32
  %h.2 = fptrunc float %f.2 to half
  %b.2 = bitcast half %h.2 to i16
  %z.2 = zext i16 %b.2 to i32
  %h.3 = fptrunc float %f.3 to half
  %b.3 = bitcast half %h.3 to i16
  %z.3 = zext i16 %b.3 to i32
  %h.4 = fptrunc float %f.4 to half
  %b.4 = bitcast half %h.4 to i16
  %z.4 = zext i16 %b.4 to i32
  %h.5 = fptrunc float %f.5 to half
  %b.5 = bitcast half %h.5 to i16
  %z.5 = zext i16 %b.5 to i32
  %h.6 = fptrunc float %f.6 to half
  %b.6 = bitcast half %h.6 to i16
  %z.6 = zext i16 %b.6 to i32
  %h.7 = fptrunc float %f.7 to half
  %b.7 = bitcast half %h.7 to i16
  %z.7 = zext i16 %b.7 to i32
  %s.0 = add i32 %acc, %z.0
  %s.1 = add i32 %s.0, %z.1
  %s.2 = add i32 %s.1, %z.2
  %s.3 = add i32 %s.2, %z.3
  %s.4 = add i32 %s.3, %z.4
  %s.5 = add i32 %s.4, %z.5
  %s.6 = add i32 %s.5, %z.6
  %s.7 = add i32 %s.6, %z.7
  %acc.next = mul i32 %s.7, 3
  %itf = sitofp i32 %it to float
  %e.0 = fpext half %h.3 to float
  %m.0 = fmul float %e.0, 1.0078125
  %g.0 = fadd float %m.0, %itf
  %e.1 = fpext half %h.4 to float
  %m.1 = fmul float %e.1, 1.0078125
  %g.1 = fadd float %m.1, %itf
  %e.2 = fpext half %h.5 to float
  %m.2 = fmul float %e.2, 1.0078125
  %g.2 = fadd float %m.2, %itf
  %e.3 = fpext half %h.6 to float
  %m.3 = fmul float %e.3, 1.0078125
  %g.3 = fadd float %m.3, %itf
  %e.4 = fpext half %h.7 to float
  %m.4 = fmul float %e.4, 1.0078125
  %g.4 = fadd float %m.4, %itf
  %e.5 = fpext half %h.0 to float
  %m.5 = fmul float %e.5, 1.0078125
  %g.5 = fadd float %m.5, %itf
  %e.6 = fpext half %h.1 to float
  %m.6 = fmul float %e.6, 1.0078125
  %g.6 = fadd float %m.6, %itf
  %e.7 = fpext half %h.2 to float
  %m.7 = fmul float %e.7, 1.0078125
  %g.7 = fadd float %m.7, %itf
  %it.next = add i32 %it, 1
  %done = icmp eq i32 %it.next, %iters
  br i1 %done, label %exit, label %loop
exit:
  store i32 %acc.next, ptr %out
  ret void
}

define i32 @main() {
  %out = alloca i32
  call void @carry(ptr %out, i32 29)
  %r = load i32, ptr %out
  %p = call i32 (ptr, ...) @printf(ptr @fmt, i32 %r)
  ret i32 0
}
