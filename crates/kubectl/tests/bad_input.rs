//! Hostile input through kubectl: numbers at the int64 limit and malformed YAML get
//! a clear answer (with the right location) and leave the cluster as it was.

use warehouse_kubectl::{CommandOutput, NoFiles, Session};
use warehouse_sim::{Cluster, SimDuration, Topology};

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

fn run(s: &mut Session, line: &str) -> CommandOutput {
    s.run(line, None, &NoFiles)
}

#[test]
fn delete_with_a_grace_period_of_a_trillion_seconds() {
    let mut s = session();
    assert_eq!(run(&mut s, "run web --image=nginx:1.27").code, 0);
    s.cluster.advance(SimDuration::secs(20));
    let out = run(&mut s, "delete pod web --grace-period=1000000000000");
    assert_eq!(out.stdout, "pod \"web\" deleted from default namespace\n");
    assert_eq!(out.code, 0);
}
