//! The view in parts, for a viewer that keeps its own model of the floor up to date
//! from the change feed (`Cluster::feed_since`) instead of taking a whole
//! [`ClusterView`](crate::views::view::ClusterView) on every change: one zone, one robot,
//! the waiting bay, the control-plane strip, the reception desk's log. Each part is
//! what `Cluster::view` puts in its place, computed the same way.

use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::runtime::control_plane::ControlPlaneComponent;
use crate::sort::StableSort;
use crate::views::view::REQUESTS_IN_VIEW;
use crate::views::view::{
    pod_view, volume_view, ComponentView, NodeView, PodView, RequestView, VolumeView, ZoneHealth,
};
use k8s_openapi::api::core::v1::Node;

impl Cluster {
    /// The names of the nodes, in the order `Cluster::view` lists them.
    pub fn node_names(&self) -> Vec<String> {
        self.store
            .list(Kind::Node, None)
            .filter_map(Object::as_node)
            .map(|n| n.metadata.name.clone().unwrap_or_default())
            .collect()
    }

    /// One node as `Cluster::view` draws it, its robots included; `None` when there
    /// is no such node. Costs one pass over that node's pods.
    pub fn node_view(&self, name: &str) -> Option<NodeView> {
        let key = ObjectKey::new(Kind::Node, "", name);
        let node = self.store.get(&key)?.as_node()?;
        Some(self.node_view_of(node, true))
    }

    /// One node without its robots (`pods` and `volumes` empty): what a Node write, a fault or a
    /// binding can change about the zone itself. Reads no pod.
    pub fn node_summary(&self, name: &str) -> Option<NodeView> {
        let key = ObjectKey::new(Kind::Node, "", name);
        let node = self.store.get(&key)?.as_node()?;
        Some(self.node_view_of(node, false))
    }

    /// Where a pod is and how it is drawn: the node it is bound to (`None` while it
    /// waits for one) and its view; `None` when there is no such pod.
    pub fn pod_placement(&self, namespace: &str, name: &str) -> Option<(Option<String>, PodView)> {
        let key = ObjectKey::new(Kind::Pod, namespace, name);
        let pod = self.store.get(&key)?.as_pod()?;
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        Some((node, pod_view(pod)))
    }

    /// Where a PersistentVolume is drawn: the node its node affinity ties it to
    /// (`None` for a volume tied to no node) and its view; `None` when there is no
    /// such volume.
    pub fn volume_placement(&self, name: &str) -> Option<(Option<String>, VolumeView)> {
        let key = ObjectKey::new(Kind::PersistentVolume, "", name);
        match self.store.get(&key)? {
            Object::Other(o) => Some(volume_view(self, o)),
            _ => None,
        }
    }

    /// The PersistentVolumes tied to `node`, sorted by name (a pass over the
    /// volumes, not the pods).
    fn volumes_on(&self, node: &str) -> Vec<VolumeView> {
        self.store
            .list(Kind::PersistentVolume, None)
            .filter_map(|o| match o {
                Object::Other(o) => Some(volume_view(self, o)),
                _ => None,
            })
            .filter(|(n, _)| n.as_deref() == Some(node))
            .map(|(_, v)| v)
            .collect()
    }

    /// The robots no node has yet, as `Cluster::view` lists them (a pass over every
    /// pod: call it once, then follow the feed).
    pub fn unscheduled_view(&self) -> Vec<PodView> {
        self.store
            .list(Kind::Pod, None)
            .filter_map(Object::as_pod)
            .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_none())
            .map(pod_view)
            .collect()
    }

    /// The control-plane strip.
    pub fn components_view(&self) -> Vec<ComponentView> {
        ControlPlaneComponent::ALL
            .into_iter()
            .map(|c| ComponentView {
                name: c.name(),
                running: self.component_running(c),
                stopped: self.component_stopped(c),
            })
            .collect()
    }

    /// The reception desk's log: the latest requests, newest first.
    pub fn requests_view(&self) -> Vec<RequestView> {
        self.requests()
            .rev()
            .take(REQUESTS_IN_VIEW)
            .map(RequestView::of)
            .collect()
    }

    /// A node's view; its robots only `with_pods`.
    pub(crate) fn node_view_of(&self, n: &Node, with_pods: bool) -> NodeView {
        let name = n.metadata.name.clone().unwrap_or_default();
        let info = self.scheduler.nodes.get(&name);
        let mut pods: Vec<PodView> = Vec::new();
        let mut volumes: Vec<VolumeView> = Vec::new();
        if with_pods {
            volumes = self.volumes_on(&name);
            pods = self
                .store
                .pods_on_node(&name)
                .filter_map(|k| self.store.get(k)?.as_pod())
                .map(pod_view)
                .collect();
            pods.stable_sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        }
        NodeView {
            control_plane: n
                .metadata
                .labels
                .as_ref()
                .is_some_and(|l| l.contains_key("node-role.kubernetes.io/control-plane")),
            health: if crate::controllers::node_lifecycle::node_ready_status(n) == "True" {
                ZoneHealth::Ready
            } else {
                ZoneHealth::NotReady
            },
            killed: !self.kubelets.get(&name).is_some_and(|k| k.running),
            unschedulable: n
                .spec
                .as_ref()
                .and_then(|s| s.unschedulable)
                .unwrap_or(false),
            cpu_requested_milli: info.map_or(0, |i| i.requested.cpu),
            cpu_allocatable_milli: info.map_or(0, |i| i.allocatable.cpu),
            memory_requested: info.map_or(0, |i| i.requested.memory),
            memory_allocatable: info.map_or(0, |i| i.allocatable.memory),
            name,
            pods,
            volumes,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cluster::{Cluster, Topology};

    #[test]
    fn the_parts_put_together_are_the_whole_view() {
        let c = Cluster::settled(1, Topology::default());
        let view = c.view();
        let nodes: Vec<_> = c
            .node_names()
            .iter()
            .map(|n| c.node_view(n).unwrap())
            .collect();
        assert_eq!(nodes, view.nodes);
        assert_eq!(c.unscheduled_view(), view.unscheduled);
        assert_eq!(c.components_view(), view.components);
        assert_eq!(c.requests_view(), view.requests);
        let first = &view.nodes[0];
        let summary = c.node_summary(&first.name).unwrap();
        assert!(summary.pods.is_empty());
        assert_eq!(summary.cpu_requested_milli, first.cpu_requested_milli);
        let pod = &first.pods[0];
        let (node, pv) = c.pod_placement(&pod.namespace, &pod.name).unwrap();
        assert_eq!(node.as_deref(), Some(first.name.as_str()));
        assert_eq!(&pv, pod);
        assert!(c.node_view("nope").is_none());
        assert!(c.pod_placement("default", "nope").is_none());
    }
}
