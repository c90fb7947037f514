// CMD: build/bin/kiln-translate --target=cuda:sm_90a --emit=ptx test/fuzz/crashes/translate-gep-f8-element-type.mlir
// Was: SIGSEGV in llvm::Type::isScalableTy from kiln::serializeModule (still in the 19:54 UTC build; fixed
// in the 20:06 build, whose 20:04 predecessor crashed in checkLLVMTypes on every input): a GEP whose element type has no LLVM
// equivalent (f8E5M2; also f8E4M3FN, f4E2M1FN, f6E2M3FN, tf32, index) passes the LLVM-dialect verifier.
// Found by seed 1 (an early version of the harness): elem_type f32 -> f8E5M2 in test/Target/nvvm-kernel.mlir.
llvm.func @k(%in: !llvm.ptr<1>) {
  %p = llvm.getelementptr %in[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f8E5M2
  llvm.return
}
