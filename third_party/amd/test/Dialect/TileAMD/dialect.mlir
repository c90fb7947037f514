// RUN: kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The tile_amd dialect is registered with the AMD backend: a module using only
// `tile` round-trips, and an op of tile_amd that does not exist is an error of
// the dialect (not "unregistered dialect").

// CHECK-LABEL: func.func @plain
func.func @plain(%p: !tile.ptr<f32>) {
  return
}

// -----

func.func @unknown() {
  // expected-error @+1 {{unregistered operation 'tile_amd.no_such_op' found in dialect ('tile_amd')}}
  "tile_amd.no_such_op"() : () -> ()
  return
}
