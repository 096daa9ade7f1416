//! `kubectl port-forward`'s tunnels: a port on the learner's laptop that reaches one
//! pod's port.
//!
//! Upstream (staging/src/k8s.io/kubectl/pkg/cmd/portforward/portforward.go and
//! client-go's tools/portforward) opens a stream through the apiserver to the
//! kubelet, which dials the port inside the pod's network namespace. So a
//! forwarded connection:
//! - reaches exactly one pod, chosen when the forward starts (a Service's or a
//!   Deployment's forward does not follow its endpoints);
//! - arrives on the pod's loopback, so NetworkPolicy does not see it and a port the
//!   app binds to 127.0.0.1 answers;
//! - ends when that pod stops running: kubectl exits (`lost connection to pod`) and
//!   the local port is closed.
//!
//! Simplified: the forward lives until the pod stops or the session ends (there is
//! no process to interrupt), and the apiserver is not on the path once the stream
//! is open (upstream's stream survives an apiserver restart only until it breaks).

use crate::cluster::Cluster;
use crate::kubelet::RuntimePod;
use crate::object::{Kind, Object, ObjectKey};
use serde::{Deserialize, Serialize};

/// One forwarded local port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortForward {
    pub namespace: String,
    pub pod: String,
    /// The pod instance the forward was opened to: a replacement with the same name
    /// is another pod.
    pub uid: String,
    /// The port inside the pod.
    pub port: u16,
}

/// Why a forward cannot start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForwardError {
    /// The pod is not found.
    NotFound,
    /// The pod is not Running (its phase).
    NotRunning(String),
    /// The local port is taken.
    InUse,
}

impl Cluster {
    /// Opens a forward from the laptop's `local` port to `port` of pod `name`, as
    /// `kubectl port-forward` does once it has chosen the pod. The pod must be
    /// Running (upstream checks the phase before it dials).
    pub fn port_forward_open(
        &mut self,
        namespace: &str,
        name: &str,
        local: u16,
        port: u16,
    ) -> Result<(), ForwardError> {
        if self.traffic.forwards.contains_key(&local) && self.forward_target(local).is_some() {
            return Err(ForwardError::InUse);
        }
        let uid = self.forwardable(namespace, name)?;
        self.traffic.forwards.insert(
            local,
            PortForward {
                namespace: namespace.to_string(),
                pod: name.to_string(),
                uid,
                port,
            },
        );
        Ok(())
    }

    /// The uid of a pod a forward can be opened to now, or why there is none.
    pub fn forwardable(&self, namespace: &str, name: &str) -> Result<String, ForwardError> {
        let key = ObjectKey::new(Kind::Pod, namespace, name);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return Err(ForwardError::NotFound);
        };
        let phase = pod
            .status
            .as_ref()
            .and_then(|s| s.phase.clone())
            .unwrap_or_default();
        if phase != "Running" {
            return Err(ForwardError::NotRunning(phase));
        }
        Ok(pod.metadata.uid.clone().unwrap_or_default())
    }

    /// The forward on `local`, while its pod still runs; a forward whose pod is gone
    /// has ended (kubectl exited) and is forgotten.
    pub(crate) fn forward_target(&mut self, local: u16) -> Option<PortForward> {
        let f = self.traffic.forwards.get(&local)?.clone();
        if self.forward_alive(&f) {
            return Some(f);
        }
        self.traffic.forwards.remove(&local);
        None
    }

    /// The forwards open now, by local port.
    pub fn port_forwards(&self) -> impl Iterator<Item = (u16, &PortForward)> {
        self.traffic
            .forwards
            .iter()
            .filter(|(_, f)| self.forward_alive(f))
            .map(|(p, f)| (*p, f))
    }

    /// Whether the pod instance a forward was opened to still runs on its node.
    fn forward_alive(&self, f: &PortForward) -> bool {
        let key = ObjectKey::new(Kind::Pod, &f.namespace, &f.pod);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return false;
        };
        if pod.metadata.uid.as_deref() != Some(f.uid.as_str()) {
            return false;
        }
        let Some(node) = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) else {
            return false;
        };
        self.kubelets.get(node).filter(|k| k.running).is_some_and(
            |k| matches!(k.pods.get(&key), Some(RuntimePod::Running { uid }) if *uid == f.uid),
        )
    }
}
