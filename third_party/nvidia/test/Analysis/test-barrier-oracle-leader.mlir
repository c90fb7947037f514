// RUN: kiln-opt %s --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LEADER --implicit-check-not=witnessed
// RUN: sed -e 's/mbarrier_init %bar, 1/mbarrier_init %bar, 2/' %s | kiln-opt --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: sed -e 's/, from_leader//' %s | kiln-opt --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVERY

// An arrival from the set's leader only (`from_leader`, Gluon's
// arrive(from_cta=0)) in a cluster of two: CTA 0 arrives once on its own
// barrier and once on CTA 1's, CTA 1 nowhere. A barrier counting one arrival
// a phase completes in both CTAs and each wait returns (prefix LEADER); one
// counting two never completes, since only the leader's one arrival reaches
// it (prefix TWO, a hang). Without `from_leader` both CTAs arrive on both
// barriers (prefix EVERY): two arrivals reach each barrier whose phase counts
// one, and the second starts the next phase with no wait for it, which the
// oracle plays without a hang.
//
// LEADER: remark: barrier oracle: {{[0-9]+}} executions
// TWO: remark: barrier oracle: witnessed (hang)
// EVERY: remark: barrier oracle: {{[0-9]+}} executions
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @leader_arrives_for_both() {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.fence_mbarrier_init_cluster
    tile_nv.cluster_arrive {relaxed = true}
    tile_nv.cluster_wait
    tile_nv.mbarrier_arrive %bar, 1 {cta_mask = 1 : i32, from_leader} : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}
