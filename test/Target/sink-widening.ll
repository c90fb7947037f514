; The live-out sinking Serialize runs for AMD (kiln::sinkWideningToUses),
; judged by execution: lli runs this program as written and after
; kiln-llvm-passes --sink-widening, and both must print the same numbers.
; The loop loads the next iteration's bytes early and converts them to
; floats for the next iteration (the phi %cur). The conversion (4 bytes in,
; 16 bytes out) moves to the end of the loop body, past the work and the
; store; the byte sum (16 bytes in, 4 out) stays where it is, and so does a
; conversion a store in the block uses.
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --sink-widening %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=LOG < %t.log

; LOG: changed 1 function(s)
; CHECK-LABEL: define void @loop(
; CHECK: loop:
; CHECK: %bytes = load <4 x i8>
; CHECK: %words = load <4 x i32>
; The narrowing sum stays next to its load.
; CHECK-NEXT: %w0 = extractelement <4 x i32> %words, i64 0
; CHECK: %sum = add i32
; The conversion a store uses stays before the store.
; CHECK: %seen = uitofp <4 x i8> %bytes to <4 x float>
; CHECK: store <4 x float> %seen
; CHECK: %acc.next = fadd <4 x float> %acc, %cur
; CHECK-NEXT: store <4 x float> %acc.next
; CHECK-NEXT: %i.next = add
; CHECK-NEXT: %more = icmp
; The widening conversion, at the end.
; CHECK-NEXT: %wide = uitofp <4 x i8> %bytes to <4 x float>
; CHECK-NEXT: %next = fmul <4 x float> %wide, splat (float 5.000000e-01)
; CHECK-NEXT: br i1 %more

@fmt = private constant [19 x i8] c"%f %f %f %f %d %f\0A\00"
declare i32 @printf(ptr, ...)

define void @loop(ptr %src, ptr %wsrc, ptr %out, ptr %log, i32 %n) {
entry:
  %b0 = load <4 x i8>, ptr %src, align 4
  %f0 = uitofp <4 x i8> %b0 to <4 x float>
  %c0 = fmul <4 x float> %f0, <float 0.5, float 0.5, float 0.5, float 0.5>
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %cur = phi <4 x float> [ %c0, %entry ], [ %next, %loop ]
  %acc = phi <4 x float> [ zeroinitializer, %entry ], [ %acc.next, %loop ]
  %total = phi i32 [ 0, %entry ], [ %sum.next, %loop ]
  %i1 = add i32 %i, 1
  %pb = getelementptr <4 x i8>, ptr %src, i32 %i1
  %bytes = load <4 x i8>, ptr %pb, align 4
  %pw = getelementptr <4 x i32>, ptr %wsrc, i32 %i1
  %words = load <4 x i32>, ptr %pw, align 16
  %w0 = extractelement <4 x i32> %words, i64 0
  %w1 = extractelement <4 x i32> %words, i64 1
  %w2 = extractelement <4 x i32> %words, i64 2
  %w3 = extractelement <4 x i32> %words, i64 3
  %s01 = add i32 %w0, %w1
  %s23 = add i32 %w2, %w3
  %sum = add i32 %s01, %s23
  %sum.next = add i32 %total, %sum
  %wide = uitofp <4 x i8> %bytes to <4 x float>
  %next = fmul <4 x float> %wide, <float 0.5, float 0.5, float 0.5, float 0.5>
  %seen = uitofp <4 x i8> %bytes to <4 x float>
  %pl = getelementptr <4 x float>, ptr %log, i32 %i
  store <4 x float> %seen, ptr %pl, align 16
  %acc.next = fadd <4 x float> %acc, %cur
  store <4 x float> %acc.next, ptr %out, align 16
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %pt = getelementptr i32, ptr %out, i32 4
  store i32 %sum.next, ptr %pt, align 4
  ret void
}

define i32 @main() {
entry:
  %src = alloca [9 x <4 x i8>], align 16
  %wsrc = alloca [9 x <4 x i32>], align 16
  %out = alloca [8 x i32], align 16
  %log = alloca [8 x <4 x float>], align 16
  br label %fill
fill:
  %j = phi i32 [ 0, %entry ], [ %j.next, %fill ]
  %h = mul i32 %j, 2654435761
  %v = lshr i32 %h, 24
  %v8 = trunc i32 %v to i8
  %q = getelementptr i8, ptr %src, i32 %j
  store i8 %v8, ptr %q, align 1
  %qw = getelementptr i32, ptr %wsrc, i32 %j
  store i32 %v, ptr %qw, align 4
  %j.next = add i32 %j, 1
  %filling = icmp ult i32 %j.next, 36
  br i1 %filling, label %fill, label %run
run:
  call void @loop(ptr %src, ptr %wsrc, ptr %out, ptr %log, i32 8)
  %r = load <4 x float>, ptr %out
  %r0 = extractelement <4 x float> %r, i32 0
  %r1 = extractelement <4 x float> %r, i32 1
  %r2 = extractelement <4 x float> %r, i32 2
  %r3 = extractelement <4 x float> %r, i32 3
  %d0 = fpext float %r0 to double
  %d1 = fpext float %r1 to double
  %d2 = fpext float %r2 to double
  %d3 = fpext float %r3 to double
  %ps = getelementptr i32, ptr %out, i32 4
  %s = load i32, ptr %ps
  %pl = getelementptr <4 x float>, ptr %log, i32 7
  %l = load <4 x float>, ptr %pl
  %l3 = extractelement <4 x float> %l, i32 3
  %dl = fpext float %l3 to double
  %pr = call i32 (ptr, ...) @printf(ptr @fmt, double %d0, double %d1, double %d2, double %d3, i32 %s, double %dl)
  ret i32 0
}
