; The narrow-phi packing that Serialize runs for AMD (kiln::packNarrowPhis),
; judged by execution: lli runs this program as written and after
; kiln-llvm-passes --pack-narrow-phis, and both must print the same checksums. The loop carries 16
; bytes (listed backwards, as scalar replacement lists a struct's phis), 6
; halves and 8 i16 through a conditional block and a latch reached from two
; edges of one switch, and leaves through 16 LCSSA phis. With the default
; threshold (8 phis of a type in a block) the halves stay as they are; with
; --min-phis=4 they are packed too.
; RUN: lli %s > %t.before
; RUN: kiln-llvm-passes --pack-narrow-phis %s 2>%t.log > %t.ll
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s --check-prefixes=PACKED,HALVES < %t.ll
; RUN: FileCheck %s --check-prefix=LOG < %t.log
; RUN: kiln-llvm-passes --pack-narrow-phis --min-phis=4 %s > %t4.ll
; RUN: lli %t4.ll > %t.after4
; RUN: diff %t.before %t.after4
; RUN: FileCheck %s --check-prefixes=PACKED,NOHALF < %t4.ll

; LOG: changed 1 function(s)
; PACKED-LABEL: define void @carry(
; PACKED-NOT: phi i8
; PACKED-NOT: phi i16
; PACKED: phi i32
; HALVES: phi half
; NOHALF-NOT: phi half
; PACKED-NOT: phi i8
; PACKED-NOT: phi i16
; PACKED: exit:
; PACKED-NEXT: phi i32
; PACKED-NOT: phi i8
; PACKED: ret void

@fmt = private constant [15 x i8] c"%d %d %d %08x\0A\00"
declare i32 @printf(ptr, ...)

define void @carry(ptr %in, ptr %out, i32 %n) {
entry:
  %v0 = load <16 x i8>, ptr %in
  %b0.0 = extractelement <16 x i8> %v0, i32 0
  %b0.1 = extractelement <16 x i8> %v0, i32 1
  %b0.2 = extractelement <16 x i8> %v0, i32 2
  %b0.3 = extractelement <16 x i8> %v0, i32 3
  %b0.4 = extractelement <16 x i8> %v0, i32 4
  %b0.5 = extractelement <16 x i8> %v0, i32 5
  %b0.6 = extractelement <16 x i8> %v0, i32 6
  %b0.7 = extractelement <16 x i8> %v0, i32 7
  %b0.8 = extractelement <16 x i8> %v0, i32 8
  %b0.9 = extractelement <16 x i8> %v0, i32 9
  %b0.10 = extractelement <16 x i8> %v0, i32 10
  %b0.11 = extractelement <16 x i8> %v0, i32 11
  %b0.12 = extractelement <16 x i8> %v0, i32 12
  %b0.13 = extractelement <16 x i8> %v0, i32 13
  %b0.14 = extractelement <16 x i8> %v0, i32 14
  %b0.15 = extractelement <16 x i8> %v0, i32 15
  %h0.0 = sitofp i32 -5 to half
  %h0.1 = sitofp i32 -2 to half
  %h0.2 = sitofp i32 1 to half
  %h0.3 = sitofp i32 4 to half
  %h0.4 = sitofp i32 7 to half
  %h0.5 = sitofp i32 10 to half
  %s0.0 = trunc i32 7 to i16
  %s0.1 = trunc i32 1007 to i16
  %s0.2 = trunc i32 2007 to i16
  %s0.3 = trunc i32 3007 to i16
  %s0.4 = trunc i32 4007 to i16
  %s0.5 = trunc i32 5007 to i16
  %s0.6 = trunc i32 6007 to i16
  %s0.7 = trunc i32 7007 to i16
  br label %loop
loop:
  %it = phi i32 [ 0, %entry ], [ %it.next, %latch ], [ %it.next, %latch2 ]
  %b.15 = phi i8 [ %b0.15, %entry ], [ %b1.15, %latch ], [ %b1.15, %latch2 ]
  %b.14 = phi i8 [ %b0.14, %entry ], [ %b1.14, %latch ], [ %b1.14, %latch2 ]
  %b.13 = phi i8 [ %b0.13, %entry ], [ %b1.13, %latch ], [ %b1.13, %latch2 ]
  %b.12 = phi i8 [ %b0.12, %entry ], [ %b1.12, %latch ], [ %b1.12, %latch2 ]
  %b.11 = phi i8 [ %b0.11, %entry ], [ %b1.11, %latch ], [ %b1.11, %latch2 ]
  %b.10 = phi i8 [ %b0.10, %entry ], [ %b1.10, %latch ], [ %b1.10, %latch2 ]
  %b.9 = phi i8 [ %b0.9, %entry ], [ %b1.9, %latch ], [ %b1.9, %latch2 ]
  %b.8 = phi i8 [ %b0.8, %entry ], [ %b1.8, %latch ], [ %b1.8, %latch2 ]
  %b.7 = phi i8 [ %b0.7, %entry ], [ %b1.7, %latch ], [ %b1.7, %latch2 ]
  %b.6 = phi i8 [ %b0.6, %entry ], [ %b1.6, %latch ], [ %b1.6, %latch2 ]
  %b.5 = phi i8 [ %b0.5, %entry ], [ %b1.5, %latch ], [ %b1.5, %latch2 ]
  %b.4 = phi i8 [ %b0.4, %entry ], [ %b1.4, %latch ], [ %b1.4, %latch2 ]
  %b.3 = phi i8 [ %b0.3, %entry ], [ %b1.3, %latch ], [ %b1.3, %latch2 ]
  %b.2 = phi i8 [ %b0.2, %entry ], [ %b1.2, %latch ], [ %b1.2, %latch2 ]
  %b.1 = phi i8 [ %b0.1, %entry ], [ %b1.1, %latch ], [ %b1.1, %latch2 ]
  %b.0 = phi i8 [ %b0.0, %entry ], [ %b1.0, %latch ], [ %b1.0, %latch2 ]
  %h.0 = phi half [ %h0.0, %entry ], [ %h1.0, %latch ], [ %h1.0, %latch2 ]
  %h.1 = phi half [ %h0.1, %entry ], [ %h1.1, %latch ], [ %h1.1, %latch2 ]
  %h.2 = phi half [ %h0.2, %entry ], [ %h1.2, %latch ], [ %h1.2, %latch2 ]
  %h.3 = phi half [ %h0.3, %entry ], [ %h1.3, %latch ], [ %h1.3, %latch2 ]
  %h.4 = phi half [ %h0.4, %entry ], [ %h1.4, %latch ], [ %h1.4, %latch2 ]
  %h.5 = phi half [ %h0.5, %entry ], [ %h1.5, %latch ], [ %h1.5, %latch2 ]
  %s.0 = phi i16 [ %s0.0, %entry ], [ %s1.0, %latch ], [ %s1.0, %latch2 ]
  %s.1 = phi i16 [ %s0.1, %entry ], [ %s1.1, %latch ], [ %s1.1, %latch2 ]
  %s.2 = phi i16 [ %s0.2, %entry ], [ %s1.2, %latch ], [ %s1.2, %latch2 ]
  %s.3 = phi i16 [ %s0.3, %entry ], [ %s1.3, %latch ], [ %s1.3, %latch2 ]
  %s.4 = phi i16 [ %s0.4, %entry ], [ %s1.4, %latch ], [ %s1.4, %latch2 ]
  %s.5 = phi i16 [ %s0.5, %entry ], [ %s1.5, %latch ], [ %s1.5, %latch2 ]
  %s.6 = phi i16 [ %s0.6, %entry ], [ %s1.6, %latch ], [ %s1.6, %latch2 ]
  %s.7 = phi i16 [ %s0.7, %entry ], [ %s1.7, %latch ], [ %s1.7, %latch2 ]
  %off = mul i32 %it, 16
  %p = getelementptr i8, ptr %in, i32 %off
  %v = load <16 x i8>, ptr %p
  %x.0 = extractelement <16 x i8> %v, i32 0
  %m.0 = mul i8 %b.5, 3
  %b1.0 = add i8 %m.0, %x.0
  %x.1 = extractelement <16 x i8> %v, i32 1
  %m.1 = mul i8 %b.6, 3
  %b1.1 = add i8 %m.1, %x.1
  %x.2 = extractelement <16 x i8> %v, i32 2
  %m.2 = mul i8 %b.7, 3
  %b1.2 = add i8 %m.2, %x.2
  %x.3 = extractelement <16 x i8> %v, i32 3
  %m.3 = mul i8 %b.8, 3
  %b1.3 = add i8 %m.3, %x.3
  %x.4 = extractelement <16 x i8> %v, i32 4
  %m.4 = mul i8 %b.9, 3
  %b1.4 = add i8 %m.4, %x.4
  %x.5 = extractelement <16 x i8> %v, i32 5
  %m.5 = mul i8 %b.10, 3
  %b1.5 = add i8 %m.5, %x.5
  %x.6 = extractelement <16 x i8> %v, i32 6
  %m.6 = mul i8 %b.11, 3
  %b1.6 = add i8 %m.6, %x.6
  %x.7 = extractelement <16 x i8> %v, i32 7
  %m.7 = mul i8 %b.12, 3
  %b1.7 = add i8 %m.7, %x.7
  %x.8 = extractelement <16 x i8> %v, i32 8
  %m.8 = mul i8 %b.13, 3
  %b1.8 = add i8 %m.8, %x.8
  %x.9 = extractelement <16 x i8> %v, i32 9
  %m.9 = mul i8 %b.14, 3
  %b1.9 = add i8 %m.9, %x.9
  %x.10 = extractelement <16 x i8> %v, i32 10
  %m.10 = mul i8 %b.15, 3
  %b1.10 = add i8 %m.10, %x.10
  %x.11 = extractelement <16 x i8> %v, i32 11
  %m.11 = mul i8 %b.0, 3
  %b1.11 = add i8 %m.11, %x.11
  %x.12 = extractelement <16 x i8> %v, i32 12
  %m.12 = mul i8 %b.1, 3
  %b1.12 = add i8 %m.12, %x.12
  %x.13 = extractelement <16 x i8> %v, i32 13
  %m.13 = mul i8 %b.2, 3
  %b1.13 = add i8 %m.13, %x.13
  %x.14 = extractelement <16 x i8> %v, i32 14
  %m.14 = mul i8 %b.3, 3
  %b1.14 = add i8 %m.14, %x.14
  %x.15 = extractelement <16 x i8> %v, i32 15
  %m.15 = mul i8 %b.4, 3
  %b1.15 = add i8 %m.15, %x.15
  %hx.0 = uitofp i8 %x.0 to half
  %hm.0 = fmul half %h.1, 0xH3800
  %h1.0 = fadd half %hm.0, %hx.0
  %hx.1 = uitofp i8 %x.1 to half
  %hm.1 = fmul half %h.2, 0xH3800
  %h1.1 = fadd half %hm.1, %hx.1
  %hx.2 = uitofp i8 %x.2 to half
  %hm.2 = fmul half %h.3, 0xH3800
  %h1.2 = fadd half %hm.2, %hx.2
  %hx.3 = uitofp i8 %x.3 to half
  %hm.3 = fmul half %h.4, 0xH3800
  %h1.3 = fadd half %hm.3, %hx.3
  %hx.4 = uitofp i8 %x.4 to half
  %hm.4 = fmul half %h.5, 0xH3800
  %h1.4 = fadd half %hm.4, %hx.4
  %hx.5 = uitofp i8 %x.5 to half
  %hm.5 = fmul half %h.0, 0xH3800
  %h1.5 = fadd half %hm.5, %hx.5
  %sx.0 = zext i8 %b.0 to i16
  %sm.0 = mul i16 %s.3, 31
  %s1.0 = xor i16 %sm.0, %sx.0
  %sx.1 = zext i8 %b.1 to i16
  %sm.1 = mul i16 %s.4, 31
  %s1.1 = xor i16 %sm.1, %sx.1
  %sx.2 = zext i8 %b.2 to i16
  %sm.2 = mul i16 %s.5, 31
  %s1.2 = xor i16 %sm.2, %sx.2
  %sx.3 = zext i8 %b.3 to i16
  %sm.3 = mul i16 %s.6, 31
  %s1.3 = xor i16 %sm.3, %sx.3
  %sx.4 = zext i8 %b.4 to i16
  %sm.4 = mul i16 %s.7, 31
  %s1.4 = xor i16 %sm.4, %sx.4
  %sx.5 = zext i8 %b.5 to i16
  %sm.5 = mul i16 %s.0, 31
  %s1.5 = xor i16 %sm.5, %sx.5
  %sx.6 = zext i8 %b.6 to i16
  %sm.6 = mul i16 %s.1, 31
  %s1.6 = xor i16 %sm.6, %sx.6
  %sx.7 = zext i8 %b.7 to i16
  %sm.7 = mul i16 %s.2, 31
  %s1.7 = xor i16 %sm.7, %sx.7
  %odd = and i32 %it, 1
  %c = icmp eq i32 %odd, 1
  br i1 %c, label %side, label %join
side:
  %sidx = zext i8 %b.3 to i32
  %sv = add i32 %sidx, %it
  store i32 %sv, ptr %out
  br label %join
join:
  %it.next = add i32 %it, 1
  %done = icmp eq i32 %it.next, %n
  %sel = and i32 %it, 3
  br i1 %done, label %exit, label %sw
sw:
  switch i32 %sel, label %latch2 [ i32 0, label %latch
                                   i32 1, label %latch ]
latch:
  br label %loop
latch2:
  br label %loop
exit:
  %e.0 = phi i8 [ %b.0, %join ]
  %e.1 = phi i8 [ %b.1, %join ]
  %e.2 = phi i8 [ %b.2, %join ]
  %e.3 = phi i8 [ %b.3, %join ]
  %e.4 = phi i8 [ %b.4, %join ]
  %e.5 = phi i8 [ %b.5, %join ]
  %e.6 = phi i8 [ %b.6, %join ]
  %e.7 = phi i8 [ %b.7, %join ]
  %e.8 = phi i8 [ %b.8, %join ]
  %e.9 = phi i8 [ %b.9, %join ]
  %e.10 = phi i8 [ %b.10, %join ]
  %e.11 = phi i8 [ %b.11, %join ]
  %e.12 = phi i8 [ %b.12, %join ]
  %e.13 = phi i8 [ %b.13, %join ]
  %e.14 = phi i8 [ %b.14, %join ]
  %e.15 = phi i8 [ %b.15, %join ]
  %acc0 = add i32 0, 0
  %ez.0 = zext i8 %e.0 to i32
  %es.0 = shl i32 %acc0, 3
  %ex.0 = xor i32 %es.0, %ez.0
  %acc1 = add i32 %ex.0, 0
  %ez.1 = zext i8 %e.1 to i32
  %es.1 = shl i32 %acc1, 3
  %ex.1 = xor i32 %es.1, %ez.1
  %acc2 = add i32 %ex.1, 1
  %ez.2 = zext i8 %e.2 to i32
  %es.2 = shl i32 %acc2, 3
  %ex.2 = xor i32 %es.2, %ez.2
  %acc3 = add i32 %ex.2, 2
  %ez.3 = zext i8 %e.3 to i32
  %es.3 = shl i32 %acc3, 3
  %ex.3 = xor i32 %es.3, %ez.3
  %acc4 = add i32 %ex.3, 3
  %ez.4 = zext i8 %e.4 to i32
  %es.4 = shl i32 %acc4, 3
  %ex.4 = xor i32 %es.4, %ez.4
  %acc5 = add i32 %ex.4, 4
  %ez.5 = zext i8 %e.5 to i32
  %es.5 = shl i32 %acc5, 3
  %ex.5 = xor i32 %es.5, %ez.5
  %acc6 = add i32 %ex.5, 5
  %ez.6 = zext i8 %e.6 to i32
  %es.6 = shl i32 %acc6, 3
  %ex.6 = xor i32 %es.6, %ez.6
  %acc7 = add i32 %ex.6, 6
  %ez.7 = zext i8 %e.7 to i32
  %es.7 = shl i32 %acc7, 3
  %ex.7 = xor i32 %es.7, %ez.7
  %acc8 = add i32 %ex.7, 7
  %ez.8 = zext i8 %e.8 to i32
  %es.8 = shl i32 %acc8, 3
  %ex.8 = xor i32 %es.8, %ez.8
  %acc9 = add i32 %ex.8, 8
  %ez.9 = zext i8 %e.9 to i32
  %es.9 = shl i32 %acc9, 3
  %ex.9 = xor i32 %es.9, %ez.9
  %acc10 = add i32 %ex.9, 9
  %ez.10 = zext i8 %e.10 to i32
  %es.10 = shl i32 %acc10, 3
  %ex.10 = xor i32 %es.10, %ez.10
  %acc11 = add i32 %ex.10, 10
  %ez.11 = zext i8 %e.11 to i32
  %es.11 = shl i32 %acc11, 3
  %ex.11 = xor i32 %es.11, %ez.11
  %acc12 = add i32 %ex.11, 11
  %ez.12 = zext i8 %e.12 to i32
  %es.12 = shl i32 %acc12, 3
  %ex.12 = xor i32 %es.12, %ez.12
  %acc13 = add i32 %ex.12, 12
  %ez.13 = zext i8 %e.13 to i32
  %es.13 = shl i32 %acc13, 3
  %ex.13 = xor i32 %es.13, %ez.13
  %acc14 = add i32 %ex.13, 13
  %ez.14 = zext i8 %e.14 to i32
  %es.14 = shl i32 %acc14, 3
  %ex.14 = xor i32 %es.14, %ez.14
  %acc15 = add i32 %ex.14, 14
  %ez.15 = zext i8 %e.15 to i32
  %es.15 = shl i32 %acc15, 3
  %ex.15 = xor i32 %es.15, %ez.15
  %acc16 = add i32 %ex.15, 15
  %hsum0 = fadd half 0xH0000, 0xH0000
  %hsum1 = fadd half %hsum0, %h.0
  %hsum2 = fadd half %hsum1, %h.1
  %hsum3 = fadd half %hsum2, %h.2
  %hsum4 = fadd half %hsum3, %h.3
  %hsum5 = fadd half %hsum4, %h.4
  %hsum6 = fadd half %hsum5, %h.5
  %hi = fptosi half %hsum6 to i32
  %ssum0 = add i32 0, 0
  %sz.0 = zext i16 %s.0 to i32
  %ssum1 = add i32 %ssum0, %sz.0
  %sz.1 = zext i16 %s.1 to i32
  %ssum2 = add i32 %ssum1, %sz.1
  %sz.2 = zext i16 %s.2 to i32
  %ssum3 = add i32 %ssum2, %sz.2
  %sz.3 = zext i16 %s.3 to i32
  %ssum4 = add i32 %ssum3, %sz.3
  %sz.4 = zext i16 %s.4 to i32
  %ssum5 = add i32 %ssum4, %sz.4
  %sz.5 = zext i16 %s.5 to i32
  %ssum6 = add i32 %ssum5, %sz.5
  %sz.6 = zext i16 %s.6 to i32
  %ssum7 = add i32 %ssum6, %sz.6
  %sz.7 = zext i16 %s.7 to i32
  %ssum8 = add i32 %ssum7, %sz.7
  %o1 = getelementptr i32, ptr %out, i32 1
  store i32 %acc16, ptr %o1
  %o2 = getelementptr i32, ptr %out, i32 2
  store i32 %hi, ptr %o2
  %o3 = getelementptr i32, ptr %out, i32 3
  store i32 %ssum8, ptr %o3
  ret void
}

define i32 @main() {
entry:
  %buf = alloca [1024 x i8], align 16
  %out = alloca [4 x i32], align 16
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %i.next, %fill ]
  %i2 = mul i32 %i, 2654435761
  %i3 = lshr i32 %i2, 13
  %byte = trunc i32 %i3 to i8
  %q = getelementptr i8, ptr %buf, i32 %i
  store i8 %byte, ptr %q
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 1024
  br i1 %more, label %fill, label %run
run:
  call void @carry(ptr %buf, ptr %out, i32 37)
  %r0 = load i32, ptr %out
  %r1p = getelementptr i32, ptr %out, i32 1
  %r1 = load i32, ptr %r1p
  %r2p = getelementptr i32, ptr %out, i32 2
  %r2 = load i32, ptr %r2p
  %r3p = getelementptr i32, ptr %out, i32 3
  %r3 = load i32, ptr %r3p
  %pr = call i32 (ptr, ...) @printf(ptr @fmt, i32 %r0, i32 %r2, i32 %r3, i32 %r1)
  ret i32 0
}
