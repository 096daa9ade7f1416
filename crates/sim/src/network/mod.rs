//! The data plane and the Services behind it: the allocators (`services`), kube-proxy
//! (`proxy`), CoreDNS (`dns`), ingress-nginx (`ingress`), the Gateway API's Envoy
//! (`gateway`), the cloud controller's load balancers (`cloud`), NetworkPolicy
//! (`policy`), the request path (`http`), the traffic generator (`traffic`) and
//! `kubectl port-forward`'s tunnels (`port_forward`).

pub mod cloud;
pub mod dns;
pub mod gateway;
pub mod http;
pub mod ingress;
pub mod policy;
pub mod port_forward;
pub mod proxy;
pub mod services;
pub mod traffic;
