//! The data plane and the Services behind it: the allocators (`services`), kube-proxy
//! (`proxy`), CoreDNS (`dns`), ingress-nginx (`ingress`), the Gateway API's Envoy (`gateway`), the cloud controller's load
//! balancers (`cloud`), NetworkPolicy (`policy`), the request path (`http`) and the traffic generator
//! (`traffic`).

pub mod cloud;
pub mod dns;
pub mod gateway;
pub mod http;
pub mod ingress;
pub mod policy;
pub mod proxy;
pub mod services;
pub mod traffic;
