//! Compiled only by `cargo xtask invariants` (`--cfg warehouse_probe`), which
//! expects every line below to be refused: the store's writes are private to the
//! apiserver, so a controller, the scheduler or a kubelet cannot write it without a
//! request. `apiserver/mod.rs` holds the same calls, which must compile.

use crate::cluster::Cluster;
use crate::object::{Object, ObjectKey};

#[allow(dead_code)]
fn outside_the_apiserver(c: &mut Cluster, obj: Object, key: &ObjectKey) {
    let _ = c.store.create(obj.clone()); // probe: store.create
    let _ = c.store.update(obj.clone()); // probe: store.update
    let _ = c.store.remove(key); // probe: store.remove
    let _ = crate::store::Store::restored(vec![obj], 1); // probe: Store::restored
    c.store.limits = Default::default(); // probe: store.limits
}
