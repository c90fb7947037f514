// A ptxas that rejects the PTX: its exit code and stderr reach the user.
// REQUIRES: nvidia
// RUN: printf '#!/bin/sh\necho "ptxas fatal : something is wrong" >&2\nexit 255\n' > %t.ptxas
// RUN: chmod +x %t.ptxas
// RUN: not kiln-translate --target=cuda:sm_90a --emit=cubin --ptxas-path=%t.ptxas %s 2>&1 | FileCheck %s
// RUN: env KILN_PTXAS=%t.ptxas not kiln-translate --target=cuda:sm_90a --emit=cubin %s 2>&1 | FileCheck %s

// CHECK: error: ptxas failed with exit code 255
// CHECK-NEXT: command: {{.*}}ptxas -arch=sm_90a -O3 -o {{.*}}.cubin {{.*}}.ptx
// CHECK-NEXT: ptxas fatal : something is wrong
llvm.func @empty() attributes {nvvm.kernel} {
  llvm.return
}
