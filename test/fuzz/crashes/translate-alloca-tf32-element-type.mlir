// CMD: build/bin/kiln-translate --target=hip:gfx942 --emit=amdgcn test/fuzz/crashes/translate-alloca-tf32-element-type.mlir
// Was: SIGSEGV in llvm::DataLayout::getAlignment (fixed in the 20:06 UTC build): same cause as translate-gep-f8-element-type.mlir, through llvm.alloca's
// element type (tf32 has no LLVM equivalent).
llvm.func @k() {
  %c = llvm.mlir.constant(1 : i64) : i64
  %p = llvm.alloca %c x tf32 : (i64) -> !llvm.ptr<5>
  llvm.return
}
