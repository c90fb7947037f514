// CMD: build/bin/kiln-translate --target=hip:gfx950 --emit=hsaco test/fuzz/crashes/translate-module-scope-op.mlir
// Was: SIGSEGV in llvm::BasicBlock::getModule from kiln::serializeModule (fixed by 19:34 UTC: now a located
// "cannot appear at module scope" error). Any non-global op at module scope, not only barriers: here
// rocdl.workitem.id.y; also llvm.mlir.zero / llvm.mlir.constant (SIGSEGV in llvm::BasicBlock::getDataLayout).
// Found by seed 1 (an llvm_snippet mutation inserting at line 1 of test/Target/ptxas-error.mlir).
rocdl.workitem.id.y : i32
llvm.func @empty() {
  llvm.return
}
