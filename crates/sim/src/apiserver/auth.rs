//! The reception desk's first two checks: authentication (who is asking?) and
//! authorization (may they?), as kube-apiserver's token authenticator and RBAC
//! authorizer (plugin/pkg/auth/authorizer/rbac) decide them.
//!
//! Requests made through the `*_by` methods carry a [`Caller`]; the plain
//! `create`/`get`/... methods act as the cluster administrator. Control-plane
//! components (controllers, scheduler, kubelets) write under their own identities and
//! are not checked here: upstream grants them bootstrap roles that allow what they do.

use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// An authenticated identity.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Caller {
    pub user: String,
    pub groups: Vec<String>,
}

/// The administrator's user, as kubeadm's `super-admin.conf` has it.
pub const ADMIN_USER: &str = "kubernetes-admin";
/// The administrator's bearer token in the simulated kubeconfig.
pub const ADMIN_TOKEN: &str = "admin-token";

impl Caller {
    /// The cluster administrator, in `system:masters`.
    pub fn admin() -> Caller {
        Caller {
            user: ADMIN_USER.into(),
            groups: vec!["system:masters".into(), "system:authenticated".into()],
        }
    }

    /// A user as impersonation (`kubectl --as U --as-group G`) presents them.
    pub fn impersonated(user: &str, groups: &[String]) -> Caller {
        let mut groups: Vec<String> = groups.to_vec();
        if let Some(sa) = user.strip_prefix("system:serviceaccount:") {
            if let Some((ns, _)) = sa.split_once(':') {
                groups.push("system:serviceaccounts".into());
                groups.push(format!("system:serviceaccounts:{ns}"));
            }
        }
        if !groups.iter().any(|g| g == "system:authenticated") {
            groups.push("system:authenticated".into());
        }
        Caller {
            user: user.to_string(),
            groups,
        }
    }

    pub fn is_admin(&self) -> bool {
        self.user == ADMIN_USER
    }
}

/// What a request asks to do, as the authorizer sees it (upstream `authorizer.Attributes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attributes {
    pub verb: String,
    pub kind: Kind,
    pub subresource: Option<String>,
    /// Empty at cluster scope.
    pub namespace: String,
    /// Empty for create, list and watch.
    pub name: String,
}

impl Attributes {
    /// `verb` on one object (or, with an empty name, on the collection) of `kind`;
    /// the namespace is dropped for cluster-scoped kinds.
    pub fn on(verb: &str, kind: Kind, namespace: &str, name: &str) -> Attributes {
        Attributes {
            verb: verb.into(),
            kind,
            subresource: None,
            namespace: if kind.namespaced() {
                namespace.to_string()
            } else {
                String::new()
            },
            name: name.to_string(),
        }
    }
}

/// The users the simulated kubeconfig knows, by bearer token.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Authenticator {
    tokens: BTreeMap<String, Caller>,
}

impl Authenticator {
    pub fn with_admin() -> Authenticator {
        let mut a = Authenticator::default();
        a.tokens.insert(ADMIN_TOKEN.into(), Caller::admin());
        a
    }
}

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
    let v = |xs: &[&str]| Some(xs.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    PolicyRule {
        api_groups: v(groups),
        resources: v(resources),
        verbs: verbs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

const READ: &[&str] = &["get", "list", "watch"];
const WRITE: &[&str] = &["create", "delete", "deletecollection", "patch", "update"];

/// The rules of the default user-facing ClusterRoles, flattened from upstream's
/// aggregated roles (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go).
fn default_roles() -> Vec<(&'static str, Vec<PolicyRule>)> {
    let view = view_rules();
    let mut edit = view.clone();
    edit.extend(edit_additions());
    let mut admin = edit.clone();
    admin.extend(admin_additions());
    let mut roles = vec![
        ("cluster-admin", all_rules()),
        ("admin", admin),
        ("edit", edit),
        ("view", view),
    ];
    roles.extend(system_roles());
    roles
}

/// `view`: read access to most namespaced objects, not Secrets.
fn view_rules() -> Vec<PolicyRule> {
    let view_core = &[
        "configmaps",
        "endpoints",
        "persistentvolumeclaims",
        "persistentvolumeclaims/status",
        "pods",
        "replicationcontrollers",
        "replicationcontrollers/scale",
        "serviceaccounts",
        "services",
        "services/status",
        "bindings",
        "events",
        "limitranges",
        "namespaces/status",
        "pods/log",
        "pods/status",
        "replicationcontrollers/status",
        "resourcequotas",
        "resourcequotas/status",
        "namespaces",
    ];
    let apps = &[
        "controllerrevisions",
        "daemonsets",
        "daemonsets/status",
        "deployments",
        "deployments/scale",
        "deployments/status",
        "replicasets",
        "replicasets/scale",
        "replicasets/status",
        "statefulsets",
        "statefulsets/scale",
        "statefulsets/status",
    ];
    vec![
        rule(&[""], view_core, READ),
        rule(&["apps"], apps, READ),
        rule(
            &["autoscaling"],
            &[
                "horizontalpodautoscalers",
                "horizontalpodautoscalers/status",
            ],
            READ,
        ),
        rule(
            &["batch"],
            &["cronjobs", "cronjobs/status", "jobs", "jobs/status"],
            READ,
        ),
        rule(&["discovery.k8s.io"], &["endpointslices"], READ),
        rule(
            &["policy"],
            &["poddisruptionbudgets", "poddisruptionbudgets/status"],
            READ,
        ),
        rule(
            &["networking.k8s.io"],
            &["ingresses", "ingresses/status", "networkpolicies"],
            READ,
        ),
    ]
}

/// What `edit` adds to `view`: Secrets, the pod subresources, and writes.
fn edit_additions() -> [PolicyRule; 12] {
    [
        rule(
            &[""],
            &[
                "pods/attach",
                "pods/exec",
                "pods/portforward",
                "pods/proxy",
                "secrets",
                "services/proxy",
            ],
            READ,
        ),
        rule(&[""], &["serviceaccounts"], &["impersonate"]),
        rule(
            &[""],
            &[
                "pods",
                "pods/attach",
                "pods/exec",
                "pods/portforward",
                "pods/proxy",
            ],
            WRITE,
        ),
        rule(&[""], &["pods/eviction"], &["create"]),
        rule(
            &[""],
            &[
                "configmaps",
                "endpoints",
                "persistentvolumeclaims",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "secrets",
                "serviceaccounts",
                "services",
                "services/proxy",
            ],
            WRITE,
        ),
        rule(&[""], &["serviceaccounts/token"], &["create"]),
        rule(
            &["apps"],
            &[
                "daemonsets",
                "deployments",
                "deployments/rollback",
                "deployments/scale",
                "replicasets",
                "replicasets/scale",
                "statefulsets",
                "statefulsets/scale",
            ],
            WRITE,
        ),
        rule(&["autoscaling"], &["horizontalpodautoscalers"], WRITE),
        rule(&["batch"], &["cronjobs", "jobs"], WRITE),
        rule(
            &["networking.k8s.io"],
            &["ingresses", "networkpolicies"],
            WRITE,
        ),
        rule(&["policy"], &["poddisruptionbudgets"], WRITE),
        rule(&["discovery.k8s.io"], &["endpointslices"], WRITE),
    ]
}

/// What `admin` adds to `edit`: Roles and RoleBindings in the namespace.
fn admin_additions() -> [PolicyRule; 3] {
    [
        rule(
            &["rbac.authorization.k8s.io"],
            &["rolebindings", "roles"],
            READ,
        ),
        rule(
            &["rbac.authorization.k8s.io"],
            &["rolebindings", "roles"],
            WRITE,
        ),
        rule(
            &["authorization.k8s.io"],
            &["localsubjectaccessreviews"],
            &["create"],
        ),
    ]
}

/// `cluster-admin`: everything.
fn all_rules() -> Vec<PolicyRule> {
    vec![
        rule(&["*"], &["*"], &["*"]),
        PolicyRule {
            non_resource_urls: Some(vec!["*".into()]),
            verbs: vec!["*".into()],
            ..Default::default()
        },
    ]
}

/// The `system:` roles every user gets: who am I, what may I do, and discovery.
fn system_roles() -> Vec<(&'static str, Vec<PolicyRule>)> {
    let urls = |list: &[&str]| PolicyRule {
        non_resource_urls: Some(list.iter().map(|u| u.to_string()).collect()),
        verbs: vec!["get".into()],
        ..Default::default()
    };
    vec![
        (
            "system:basic-user",
            vec![
                rule(
                    &["authentication.k8s.io"],
                    &["selfsubjectreviews"],
                    &["create"],
                ),
                rule(
                    &["authorization.k8s.io"],
                    &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                    &["create"],
                ),
            ],
        ),
        (
            "system:discovery",
            vec![urls(&[
                "/api",
                "/api/*",
                "/apis",
                "/apis/*",
                "/healthz",
                "/livez",
                "/openapi",
                "/openapi/*",
                "/readyz",
                "/version",
                "/version/",
            ])],
        ),
        (
            "system:public-info-viewer",
            vec![urls(&[
                "/healthz",
                "/livez",
                "/readyz",
                "/version",
                "/version/",
            ])],
        ),
    ]
}

/// `user.SystemPrivilegedGroup`.
pub const SYSTEM_PRIVILEGED_GROUP: &str = "system:masters";

fn bootstrap_meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        labels: Some(
            [(
                "kubernetes.io/bootstrapping".to_string(),
                "rbac-defaults".to_string(),
            )]
            .into(),
        ),
        annotations: Some(
            [(
                "rbac.authorization.kubernetes.io/autoupdate".to_string(),
                "true".to_string(),
            )]
            .into(),
        ),
        ..Default::default()
    }
}

/// The default ClusterRoles and their bindings (cluster-admin to `system:masters`;
/// basic-user, discovery and public-info-viewer to every authenticated user, the last
/// also to unauthenticated ones), as the apiserver's RBAC post-start hook creates
/// them (plugin/pkg/auth/authorizer/rbac/bootstrappolicy).
pub(crate) fn bootstrap_objects() -> Vec<Object> {
    let mut out: Vec<Object> = default_roles()
        .into_iter()
        .map(|(name, rules)| {
            Object::ClusterRole(Box::new(ClusterRole {
                metadata: bootstrap_meta(name),
                rules: Some(rules),
                aggregation_rule: None,
            }))
        })
        .collect();
    let binding = |role: &str, groups: &[&str]| {
        Object::ClusterRoleBinding(Box::new(ClusterRoleBinding {
            metadata: bootstrap_meta(role),
            role_ref: RoleRef {
                api_group: Some("rbac.authorization.k8s.io".into()),
                kind: "ClusterRole".into(),
                name: role.into(),
            },
            subjects: Some(
                groups
                    .iter()
                    .map(|g| Subject {
                        api_group: Some("rbac.authorization.k8s.io".into()),
                        kind: "Group".into(),
                        name: g.to_string(),
                        namespace: None,
                    })
                    .collect(),
            ),
        }))
    };
    out.push(binding("cluster-admin", &["system:masters"]));
    out.push(binding("system:basic-user", &["system:authenticated"]));
    out.push(binding("system:discovery", &["system:authenticated"]));
    out.push(binding(
        "system:public-info-viewer",
        &["system:authenticated", "system:unauthenticated"],
    ));
    out
}

impl crate::cluster::Cluster {
    /// The apiserver's RBAC post-start hook (`EnsureRBACPolicy` in
    /// pkg/registry/rbac/rest/storage_rbac.go): every bootstrap ClusterRole and
    /// ClusterRoleBinding that is missing is created again. Upstream runs it once,
    /// when the apiserver starts, not periodically: a deleted `cluster-admin` comes
    /// back at the apiserver's next start (`sim stop apiserver`, `sim start
    /// apiserver`). Simplified: upstream also adds missing rules and subjects to
    /// existing objects annotated `rbac.authorization.kubernetes.io/autoupdate:
    /// "true"`; here existing objects are left as they are.
    pub(crate) fn ensure_rbac_policy(&mut self) {
        for obj in bootstrap_objects() {
            if self.store.get(&obj.key()).is_none() {
                let _ = self.create_as(crate::apiserver::Actor::System, obj);
            }
        }
    }
}

fn subject_matches(s: &Subject, caller: &Caller, binding_ns: &str) -> bool {
    match s.kind.as_str() {
        "User" => s.name == caller.user,
        "Group" => caller.groups.contains(&s.name),
        "ServiceAccount" => {
            let ns = s
                .namespace
                .as_deref()
                .filter(|n| !n.is_empty())
                .unwrap_or(binding_ns);
            caller.user == format!("system:serviceaccount:{ns}:{}", s.name)
        }
        _ => false,
    }
}

fn rule_allows(r: &PolicyRule, a: &Attributes) -> bool {
    let verb_ok = r.verbs.iter().any(|v| v == "*" || *v == a.verb);
    let group = a.kind.group();
    let group_ok = r
        .api_groups
        .iter()
        .flatten()
        .any(|g| g == "*" || g == group);
    let resource = match &a.subresource {
        Some(sub) => format!("{}/{}", a.kind.plural(), sub),
        None => a.kind.plural().to_string(),
    };
    let resource_ok = r.resources.iter().flatten().any(|x| {
        x == "*"
            || *x == resource
            || a.subresource
                .as_ref()
                .is_some_and(|sub| *x == format!("*/{sub}"))
    });
    let names = r.resource_names.as_deref().unwrap_or(&[]);
    let name_ok = names.is_empty() || (!a.name.is_empty() && names.contains(&a.name));
    verb_ok && group_ok && resource_ok && name_ok
}

impl Cluster {
    /// Authentication: the caller a bearer token belongs to, or 401.
    pub fn authenticate(&self, token: &str) -> Result<Caller, ApiError> {
        self.authenticator
            .tokens
            .get(token)
            .cloned()
            .ok_or_else(|| ApiError::new(StatusReason::Unauthorized, "Unauthorized"))
    }

    /// Adds a user to the simulated kubeconfig and returns their bearer token,
    /// `NAME-token`. A name whose token another user holds (`admin`, whose token is
    /// the administrator's) is refused: it would take that user's pass away.
    pub fn add_user(&mut self, user: &str, groups: &[String]) -> Result<String, String> {
        let token = format!("{user}-token");
        if let Some(holder) = self.authenticator.tokens.get(&token) {
            if holder.user != user {
                return Err(format!(
                    "the token {token} already belongs to the user \"{}\"; choose another name",
                    holder.user
                ));
            }
        }
        self.authenticator
            .tokens
            .insert(token.clone(), Caller::impersonated(user, groups));
        Ok(token)
    }

    /// The TokenRequest API (`kubectl create token SA`): a bearer token that
    /// authenticates as the ServiceAccount. Simplified: an opaque token, not a signed
    /// JWT, and it does not expire.
    pub fn issue_service_account_token(
        &mut self,
        namespace: &str,
        name: &str,
    ) -> Result<String, ApiError> {
        if self
            .store
            .get(&ObjectKey::new(Kind::ServiceAccount, namespace, name))
            .is_none()
        {
            return Err(ApiError::not_found("serviceaccounts", name));
        }
        let user = format!("system:serviceaccount:{namespace}:{name}");
        let token = format!("sa.{namespace}.{name}.{}", self.rng.suffix(10));
        self.authenticator
            .tokens
            .insert(token.clone(), Caller::impersonated(&user, &[]));
        Ok(token)
    }

    /// Authorization: RBAC, evaluated over every ClusterRoleBinding and the
    /// RoleBindings of the request's namespace. Returns the upstream 403 on denial.
    pub fn authorize(&self, caller: &Caller, a: &Attributes) -> Result<(), ApiError> {
        if self.authorizer_allows(caller, a) {
            return Ok(());
        }
        let resource = match &a.subresource {
            Some(sub) => format!("{}/{}", a.kind.plural(), sub),
            None => a.kind.plural().to_string(),
        };
        let scope = if a.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace \"{}\"", a.namespace)
        };
        let reason = format!(
            "User \"{}\" cannot {} resource \"{}\" in API group \"{}\" {}",
            caller.user,
            a.verb,
            resource,
            a.kind.group(),
            scope
        );
        // The Forbidden status names the resource without its subresource
        // (`deployments.apps "web" is forbidden: ... resource "deployments/scale"`).
        let qualified = a.kind.qualified_plural();
        let message = if a.name.is_empty() {
            format!("{qualified} is forbidden: {reason}")
        } else {
            format!("{qualified} \"{}\" is forbidden: {reason}", a.name)
        };
        Err(ApiError::new(StatusReason::Forbidden, message))
    }

    /// Whether RBAC allows the request (`kubectl auth can-i`).
    /// The RBAC rules that apply to `caller` in `namespace` (a SelfSubjectRulesReview):
    /// those of the ClusterRoleBindings and of the namespace's RoleBindings that name
    /// it, in binding order.
    pub fn rules_for(
        &self,
        caller: &Caller,
        namespace: &str,
    ) -> Vec<k8s_openapi::api::rbac::v1::PolicyRule> {
        let role_rules = |kind: &str, name: &str, ns: &str| -> Vec<PolicyRule> {
            let key = match kind {
                "ClusterRole" => ObjectKey::new(Kind::ClusterRole, "", name),
                _ => ObjectKey::new(Kind::Role, ns, name),
            };
            match self.store.get(&key) {
                Some(Object::ClusterRole(r)) => r.rules.clone().unwrap_or_default(),
                Some(Object::Role(r)) => r.rules.clone().unwrap_or_default(),
                _ => Vec::new(),
            }
        };
        let mut out = Vec::new();
        for o in self.store.list(Kind::ClusterRoleBinding, None) {
            let Object::ClusterRoleBinding(b) = o else {
                continue;
            };
            if b.subjects
                .iter()
                .flatten()
                .any(|s| subject_matches(s, caller, ""))
            {
                out.extend(role_rules(&b.role_ref.kind, &b.role_ref.name, ""));
            }
        }
        for o in self.store.list(Kind::RoleBinding, Some(namespace)) {
            let Object::RoleBinding(b) = o else { continue };
            if b.subjects
                .iter()
                .flatten()
                .any(|s| subject_matches(s, caller, namespace))
            {
                out.extend(role_rules(&b.role_ref.kind, &b.role_ref.name, namespace));
            }
        }
        out
    }

    /// kube-apiserver's authorizer chain (pkg/kubeapiserver/authorizer/config.go):
    /// the privileged-group authorizer first (`NewPrivilegedGroups(system:masters)`:
    /// a member of `system:masters` may do anything, whatever RBAC says, so
    /// deleting the `cluster-admin` binding locks nobody out), then RBAC. What a
    /// SubjectAccessReview (`kubectl auth can-i`) answers. The rules review (`can-i
    /// --list`) asks RBAC only, as upstream's rule resolvers do.
    pub fn authorizer_allows(&self, caller: &Caller, a: &Attributes) -> bool {
        caller.groups.iter().any(|g| g == SYSTEM_PRIVILEGED_GROUP) || self.rbac_allows(caller, a)
    }

    pub fn rbac_allows(&self, caller: &Caller, a: &Attributes) -> bool {
        let role_rules = |kind: &str, name: &str, ns: &str| -> Vec<PolicyRule> {
            let key = match kind {
                "ClusterRole" => ObjectKey::new(Kind::ClusterRole, "", name),
                _ => ObjectKey::new(Kind::Role, ns, name),
            };
            match self.store.get(&key) {
                Some(Object::ClusterRole(r)) => r.rules.clone().unwrap_or_default(),
                Some(Object::Role(r)) => r.rules.clone().unwrap_or_default(),
                _ => Vec::new(),
            }
        };
        for o in self.store.list(Kind::ClusterRoleBinding, None) {
            let Object::ClusterRoleBinding(b) = o else {
                continue;
            };
            let bound = b
                .subjects
                .iter()
                .flatten()
                .any(|s| subject_matches(s, caller, ""));
            let rules = || role_rules(&b.role_ref.kind, &b.role_ref.name, "");
            if bound && rules().iter().any(|r| rule_allows(r, a)) {
                return true;
            }
        }
        if !a.namespace.is_empty() {
            for o in self.store.list(Kind::RoleBinding, Some(&a.namespace)) {
                let Object::RoleBinding(b) = o else { continue };
                let bound = b
                    .subjects
                    .iter()
                    .flatten()
                    .any(|s| subject_matches(s, caller, &a.namespace));
                let rules = || role_rules(&b.role_ref.kind, &b.role_ref.name, &a.namespace);
                if bound && rules().iter().any(|r| rule_allows(r, a)) {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode_manifests, Topology};

    fn attrs(verb: &str, kind: Kind, ns: &str, name: &str) -> Attributes {
        Attributes::on(verb, kind, ns, name)
    }

    fn apply(c: &mut Cluster, yaml: &str) {
        for o in decode_manifests(yaml).unwrap() {
            c.create(o).unwrap();
        }
    }

    #[test]
    fn admin_may_do_anything_and_strangers_nothing() {
        let c = Cluster::new(1, Topology::default());
        assert!(c.rbac_allows(&Caller::admin(), &attrs("delete", Kind::Node, "", "zone-a")));
        let jane = Caller::impersonated("jane", &[]);
        let err = c
            .authorize(&jane, &attrs("list", Kind::Pod, "default", ""))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Error from server (Forbidden): pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""
        );
        let err = c
            .authorize(&jane, &attrs("list", Kind::Node, "", ""))
            .unwrap_err();
        assert_eq!(
            err.message,
            "nodes is forbidden: User \"jane\" cannot list resource \"nodes\" in API group \"\" at the cluster scope"
        );
        let err = c
            .authorize(&jane, &attrs("get", Kind::Deployment, "default", "web"))
            .unwrap_err();
        assert_eq!(
            err.message,
            "deployments.apps \"web\" is forbidden: User \"jane\" cannot get resource \"deployments\" in API group \"apps\" in the namespace \"default\""
        );
    }

    #[test]
    fn role_bindings_grant_verbs_resources_and_names_in_their_namespace_only() {
        let mut c = Cluster::new(1, Topology::default());
        apply(
            &mut c,
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: pod-reader, namespace: default}\nrules:\n- apiGroups: [\"\"]\n  resources: [pods]\n  verbs: [get, list]\n- apiGroups: [apps]\n  resources: [deployments]\n  resourceNames: [web]\n  verbs: [get]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: read-pods, namespace: default}\nsubjects:\n- kind: User\n  name: jane\n  apiGroup: rbac.authorization.k8s.io\nroleRef: {kind: Role, name: pod-reader, apiGroup: rbac.authorization.k8s.io}\n",
        );
        let jane = Caller::impersonated("jane", &[]);
        assert!(c.rbac_allows(&jane, &attrs("list", Kind::Pod, "default", "")));
        assert!(!c.rbac_allows(&jane, &attrs("delete", Kind::Pod, "default", "x")));
        assert!(!c.rbac_allows(&jane, &attrs("list", Kind::Pod, "kube-system", "")));
        assert!(c.rbac_allows(&jane, &attrs("get", Kind::Deployment, "default", "web")));
        assert!(!c.rbac_allows(&jane, &attrs("get", Kind::Deployment, "default", "api")));
        assert!(!c.rbac_allows(&jane, &attrs("list", Kind::Deployment, "default", "")));
    }

    #[test]
    fn default_cluster_roles_bind_to_groups_and_service_accounts() {
        let mut c = Cluster::new(1, Topology::default());
        apply(
            &mut c,
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: viewers}\nsubjects:\n- {kind: Group, name: viewers, apiGroup: rbac.authorization.k8s.io}\n- {kind: ServiceAccount, name: robot, namespace: ci}\nroleRef: {kind: ClusterRole, name: view, apiGroup: rbac.authorization.k8s.io}\n",
        );
        let viewer = Caller::impersonated("bob", &["viewers".into()]);
        assert!(c.rbac_allows(&viewer, &attrs("list", Kind::Deployment, "default", "")));
        assert!(!c.rbac_allows(&viewer, &attrs("create", Kind::Deployment, "default", "")));
        assert!(!c.rbac_allows(&viewer, &attrs("get", Kind::Secret, "default", "s")));
        let sa = Caller::impersonated("system:serviceaccount:ci:robot", &[]);
        assert!(sa.groups.contains(&"system:serviceaccounts:ci".to_string()));
        assert!(c.rbac_allows(&sa, &attrs("watch", Kind::Pod, "kube-system", "")));
    }

    #[test]
    fn unknown_tokens_are_unauthorized() {
        let mut c = Cluster::new(1, Topology::default());
        assert_eq!(c.authenticate("nope").unwrap_err().code(), 401);
        assert_eq!(c.authenticate(ADMIN_TOKEN).unwrap(), Caller::admin());
        let t = c.add_user("jane", &["devs".into()]).unwrap();
        assert_eq!(c.authenticate(&t).unwrap().user, "jane");
    }
}
