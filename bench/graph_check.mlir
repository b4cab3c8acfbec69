// bench/scale.sh's check of the GPU neighbour search (SCALE_GRAPH_CHECK=1):
// sezm-run --verify runs it on the GPU with the graph the GPU finds and on
// the CPU with the host list, and compares edge by edge (the same edges in
// the same order give equal vectors, sources and destinations).
func.func @graph(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %shift: tensor<?x3xf64> {sezm.name = "shift"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"})
    -> (tensor<?x3xf64> {sezm.name = "vectors"},
        tensor<?xi64> {sezm.name = "sources"},
        tensor<?xi64> {sezm.name = "destinations"}) {
  %v = sezm.edge_vectors %pos[%src, %dst] shift %shift
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  // An index times itself keeps the index's order (and makes a result of
  // its own rather than the argument handed back).
  %s = arith.muli %src, %src : tensor<?xi64>
  %d = arith.muli %dst, %dst : tensor<?xi64>
  return %v, %s, %d : tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>
}
