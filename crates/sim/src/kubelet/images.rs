//! The software depot: a catalogue of images the simulated runtime knows, with sizes
//! that set pull times. Images not in the catalogue are treated as a generic
//! long-running server of [`DEFAULT_SIZE`].

/// Bytes per simulated second a node pulls at.
pub const PULL_BYTES_PER_SEC: u64 = 25 * 1024 * 1024;
/// Size assumed for an image the catalogue does not list.
pub const DEFAULT_SIZE: u64 = 60 * 1024 * 1024;

/// What a container of an image does when it runs its default program (see
/// `runtime.rs`, which gives each behaviour its log lines and exit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// A shell image (busybox, alpine, debian, ...): its default command `sh` exits 0 at
    /// once without a tty; any command it is given runs in the simulated shell.
    Shell,
    /// A server: prints its start-up lines and serves until it is stopped.
    Server,
    /// perl: the docs' `perl -Mbignum=bpi -wle 'print bpi(2000)'` prints pi and exits.
    Perl,
    /// python: without a tty the interpreter reads nothing and exits 0.
    Python,
    /// The pause container: sleeps forever, prints nothing.
    Pause,
    /// A web app that serves for 45 s, then panics (exit code 2).
    Flaky,
    /// A web app that leaks 8 MiB of memory a second: OOMKilled at its limit.
    Leaky,
    /// `stress --vm 1 --vm-bytes 150M`: allocates that much memory and holds it.
    Stress,
    /// An LLM inference server: needs an `nvidia.com/gpu`, loads its model for 90 s.
    LlmServer,
}

pub struct ImageInfo {
    pub repository: &'static str,
    pub size: u64,
    /// How long the process takes to exit after SIGTERM, in ms.
    pub stop_ms: u64,
    pub behaviour: Behaviour,
    /// The image's ENTRYPOINT and CMD, as `docker inspect` shows them.
    pub entrypoint: &'static [&'static str],
    pub cmd: &'static [&'static str],
    /// Whether the image has `/bin/sh` and the usual applets (sleep, echo, ...).
    pub shell: bool,
    /// Executables (besides the shell and its applets) that run the image's behaviour.
    pub programs: &'static [&'static str],
    /// The tags the registry has: exact, or a pattern ending in `*` (see
    /// [`tag_matches`]: `1.2#*` is 1.20 to 1.29 and their patch and variant tags).
    pub tags: &'static [&'static str],
    /// Network tools the image ships (`nslookup`, `wget`, `curl`), which `kubectl exec`
    /// runs against the simulated network.
    pub tools: &'static [&'static str],
    /// Files of the image a learner may look at (`kubectl exec ... -- cat PATH`).
    pub files: &'static [(&'static str, &'static str)],
}

const SERVER: ImageInfo = ImageInfo {
    repository: "",
    size: DEFAULT_SIZE,
    stop_ms: 300,
    behaviour: Behaviour::Server,
    entrypoint: &[],
    cmd: &[],
    shell: true,
    programs: &[],
    tags: &["latest"],
    tools: &[],
    files: &[],
};

/// The stop time of a process that ignores SIGTERM: only the grace period's SIGKILL
/// stops it.
pub const IGNORES_SIGTERM: u64 = 24 * 3600 * 1000;

/// A distroless server: no shell in the image.
const DISTROLESS: ImageInfo = ImageInfo {
    shell: false,
    ..SERVER
};

const SHELL: ImageInfo = ImageInfo {
    behaviour: Behaviour::Shell,
    stop_ms: 100,
    cmd: &["sh"],
    ..SERVER
};

/// The bootcamp image's program (the simulation's own rendering of what it does: a
/// Node.js server on :8080 answering every request with its pod's name and version),
/// for the version `$v` the image answers with.
macro_rules! bootcamp_server_js {
    ($v:literal) => {
        concat!(
            r#"const http = require('http');

const host = process.env.HOSTNAME;
const started = new Date();
let requests = 0;

http.createServer((req, res) => {
  requests += 1;
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end(`Hello Kubernetes bootcamp! | Running on: ${host} | v="#,
            $v,
            r#"\n`);
  console.log('Running On:', host, '| Total Requests:', requests,
              '| App Uptime:', (new Date() - started) / 1000, 'seconds',
              '| Log Time:', new Date());
}).listen(8080, () => {
  console.log('Kubernetes Bootcamp App Started At:', started, '| Running On: ', host, '\n');
});
"#
        )
    };
}

/// The repositories of the "Learn Kubernetes Basics" bootcamp image: Google's (`v1`,
/// `v2`) and the tutorial's `docker.io/jocatalin/kubernetes-bootcamp:v2`.
pub const BOOTCAMP_REPOSITORIES: &[&str] = &[
    "gcr.io/google-samples/kubernetes-bootcamp",
    "jocatalin/kubernetes-bootcamp",
];

pub const CATALOGUE: &[ImageInfo] = &[
    ImageInfo {
        repository: "nginx",
        size: 72_099_410,
        entrypoint: &["/docker-entrypoint.sh"],
        cmd: &["nginx", "-g", "daemon off;"],
        programs: &["nginx", "/docker-entrypoint.sh"],
        tags: &[
            "latest",
            "stable*",
            "mainline*",
            "alpine*",
            "perl",
            "1.1#*",
            "1.2#*",
            "1",
        ],
        tools: &["curl"],
        ..SERVER
    },
    ImageInfo {
        repository: "busybox",
        size: 4_261_550,
        tags: &[
            "latest", "stable", "musl", "glibc", "uclibc", "1.2#*", "1.3#*", "1",
        ],
        tools: &["nslookup", "ps", "wget"],
        ..SHELL
    },
    ImageInfo {
        repository: "registry.k8s.io/busybox",
        size: 1_144_547,
        tags: &["latest", "1.24", "1.27", "1.27.2", "1.28"],
        tools: &["nslookup", "ps", "wget"],
        ..SHELL
    },
    ImageInfo {
        repository: "alpine",
        size: 3_653_000,
        cmd: &["/bin/sh"],
        tags: &["latest", "edge", "3*"],
        tools: &["nslookup", "ps", "wget"],
        ..SHELL
    },
    // The docs' DNS debugging pod (`dnsutils`): Debian with bind's nslookup and dig.
    ImageInfo {
        repository: "registry.k8s.io/e2e-test-images/jessie-dnsutils",
        size: 112_000_000,
        cmd: &["bash"],
        tags: &["1.*"],
        tools: &["nslookup", "dig"],
        ..SHELL
    },
    ImageInfo {
        repository: "debian",
        size: 48_490_000,
        cmd: &["bash"],
        tags: &[
            "latest",
            "stable*",
            "bookworm*",
            "bullseye*",
            "trixie*",
            "1*",
        ],
        ..SHELL
    },
    ImageInfo {
        repository: "ubuntu",
        size: 29_750_000,
        cmd: &["/bin/bash"],
        tags: &["latest", "rolling", "noble", "jammy", "focal", "2#*"],
        ..SHELL
    },
    ImageInfo {
        repository: "bash",
        size: 6_330_000,
        entrypoint: &["docker-entrypoint.sh"],
        cmd: &["bash"],
        tags: &["latest", "4*", "5*"],
        tools: &["nslookup", "wget"],
        ..SHELL
    },
    ImageInfo {
        repository: "curlimages/curl",
        size: 9_860_000,
        entrypoint: &["/entrypoint.sh"],
        cmd: &["curl", "--help"],
        tags: &["latest", "7.*", "8.*"],
        tools: &["curl", "nslookup", "wget"],
        ..SHELL
    },
    ImageInfo {
        repository: "perl",
        size: 335_400_000,
        stop_ms: 100,
        behaviour: Behaviour::Perl,
        cmd: &["perl", "-de0"],
        programs: &["perl"],
        tags: &["latest", "slim", "5*"],
        ..SERVER
    },
    ImageInfo {
        repository: "python",
        size: 392_600_000,
        stop_ms: 100,
        behaviour: Behaviour::Python,
        cmd: &["python3"],
        programs: &["python", "python3"],
        tags: &["latest", "slim*", "alpine*", "3*"],
        ..SERVER
    },
    ImageInfo {
        repository: "redis",
        size: 45_640_123,
        stop_ms: 200,
        entrypoint: &["docker-entrypoint.sh"],
        cmd: &["redis-server"],
        programs: &["redis-server", "docker-entrypoint.sh"],
        tags: &["latest", "alpine*", "6*", "7*", "8*"],
        ..SERVER
    },
    ImageInfo {
        repository: "httpd",
        size: 58_400_000,
        cmd: &["httpd-foreground"],
        programs: &["httpd-foreground", "httpd"],
        tags: &["latest", "alpine*", "2*"],
        ..SERVER
    },
    ImageInfo {
        repository: "registry.k8s.io/nginx-slim",
        size: 51_800_000,
        cmd: &["nginx", "-g", "daemon off;"],
        programs: &["nginx"],
        tags: &["0.7", "0.8", "0.2#*"],
        ..SERVER
    },
    ImageInfo {
        repository: "bprashanth/nginxhttps",
        size: 83_000_000,
        cmd: &["/home/auto-reload-nginx.sh"],
        programs: &["nginx", "/home/auto-reload-nginx.sh"],
        tags: &["1.0"],
        ..SERVER
    },
    ImageInfo {
        repository: "gcr.io/google-samples/kubernetes-bootcamp",
        size: 75_900_000,
        cmd: &["/bin/sh", "-c", "node server.js"],
        programs: &["node"],
        tags: &["v1", "v2"],
        tools: &["curl"],
        files: &[("/server.js", bootcamp_server_js!("1"))],
        // `/bin/sh -c` stays PID 1 (dash does not exec the last command) and ignores
        // SIGTERM: the kubelet kills the container when the grace period ends.
        stop_ms: IGNORES_SIGTERM,
        ..SERVER
    },
    // The tutorial's v2 image: the same program, answering `v=2`.
    ImageInfo {
        repository: "jocatalin/kubernetes-bootcamp",
        size: 75_900_000,
        cmd: &["/bin/sh", "-c", "node server.js"],
        programs: &["node"],
        tags: &["v2"],
        tools: &["curl"],
        files: &[("/server.js", bootcamp_server_js!("2"))],
        // `/bin/sh -c` stays PID 1 (dash does not exec the last command) and ignores
        // SIGTERM: the kubelet kills the container when the grace period ends.
        stop_ms: IGNORES_SIGTERM,
        ..SERVER
    },
    ImageInfo {
        repository: "gcr.io/google-samples/hello-app",
        size: 11_500_000,
        cmd: &["./hello-app"],
        programs: &["hello-app", "./hello-app"],
        tags: &["1.0", "2.0"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "gcr.io/google-samples/hello-go-gke",
        size: 4_300_000,
        cmd: &["/hello"],
        programs: &["/hello", "hello"],
        tags: &["1.0"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "gcr.io/google-samples/hello-frontend",
        size: 53_900_000,
        cmd: &["nginx", "-g", "daemon off;"],
        programs: &["nginx"],
        tags: &["1.0"],
        ..SERVER
    },
    ImageInfo {
        repository: "gcr.io/google-samples/gb-frontend",
        size: 134_000_000,
        stop_ms: 500,
        cmd: &["apache2-foreground"],
        programs: &["apache2-foreground"],
        tags: &["v4", "v5"],
        ..SERVER
    },
    ImageInfo {
        repository: "corelab/gb-frontend",
        size: 131_000_000,
        stop_ms: 500,
        cmd: &["apache2-foreground"],
        programs: &["apache2-foreground"],
        tags: &["v5"],
        ..SERVER
    },
    ImageInfo {
        repository: "us-docker.pkg.dev/google-samples/containers/gke/gb-redis-follower",
        size: 39_600_000,
        cmd: &["/run.sh"],
        programs: &["/run.sh", "redis-server"],
        tags: &["v2"],
        ..SERVER
    },
    ImageInfo {
        repository: "registry.k8s.io/e2e-test-images/agnhost",
        size: 51_000_000,
        entrypoint: &["/agnhost"],
        cmd: &["pause"],
        programs: &["/agnhost", "agnhost"],
        tags: &["2.*"],
        ..SERVER
    },
    ImageInfo {
        repository: "registry.k8s.io/goproxy",
        size: 2_500_000,
        cmd: &["/goproxy"],
        programs: &["/goproxy"],
        tags: &["0.1"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "k8s.gcr.io/fluentd-elasticsearch",
        size: 140_000_000,
        cmd: &["/run.sh"],
        programs: &["/run.sh", "td-agent"],
        tags: &["1.20"],
        ..SERVER
    },
    ImageInfo {
        repository: "quay.io/fluentd_elasticsearch/fluentd",
        size: 160_000_000,
        cmd: &["/run.sh"],
        programs: &["/run.sh", "fluentd"],
        tags: &["v2.5.2", "v5.0.1", "v4*", "v3*"],
        ..SERVER
    },
    ImageInfo {
        repository: "polinux/stress",
        size: 4_200_000,
        stop_ms: 100,
        behaviour: Behaviour::Stress,
        cmd: &["stress", "--help"],
        programs: &["stress"],
        tags: &["latest", "1.0.4"],
        ..SHELL
    },
    ImageInfo {
        repository: "vish/stress",
        size: 2_300_000,
        stop_ms: 100,
        entrypoint: &["/stress", "-logtostderr"],
        programs: &["/stress"],
        tags: &["latest"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/pause",
        size: 320_368,
        stop_ms: 50,
        behaviour: Behaviour::Pause,
        cmd: &["/pause"],
        programs: &["/pause"],
        tags: &["3.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "k8s.gcr.io/pause",
        size: 240_000,
        stop_ms: 50,
        behaviour: Behaviour::Pause,
        cmd: &["/pause"],
        programs: &["/pause"],
        tags: &["2.0", "3.*"],
        ..DISTROLESS
    },
    // The cluster's own images (compressed sizes of the amd64 images).
    ImageInfo {
        repository: "registry.k8s.io/kube-proxy",
        size: 30_900_000,
        stop_ms: 200,
        entrypoint: &["/usr/local/bin/kube-proxy"],
        programs: &["/usr/local/bin/kube-proxy", "kube-proxy"],
        tags: &["v1.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/coredns/coredns",
        size: 22_400_000,
        stop_ms: 200,
        entrypoint: &["/coredns"],
        programs: &["/coredns"],
        tags: &["v1.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/metrics-server/metrics-server",
        size: 19_500_000,
        stop_ms: 200,
        entrypoint: &["/metrics-server"],
        programs: &["/metrics-server"],
        tags: &["v0.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-apiserver",
        size: 28_900_000,
        stop_ms: 1000,
        programs: &["kube-apiserver"],
        tags: &["v1.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-controller-manager",
        size: 26_400_000,
        programs: &["kube-controller-manager"],
        tags: &["v1.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-scheduler",
        size: 20_700_000,
        programs: &["kube-scheduler"],
        tags: &["v1.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/etcd",
        size: 23_200_000,
        stop_ms: 500,
        programs: &["etcd", "/usr/local/bin/etcd"],
        tags: &["3.*"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/hpa-example",
        size: 188_000_000,
        stop_ms: 500,
        cmd: &["apache2-foreground"],
        programs: &["apache2-foreground"],
        tags: &["latest"],
        ..SERVER
    },
    // The warehouse's teaching images.
    ImageInfo {
        repository: "ghcr.io/kube-warehouse/flaky-app",
        size: 18_300_000,
        behaviour: Behaviour::Flaky,
        cmd: &["/flaky-app"],
        programs: &["/flaky-app"],
        tags: &["latest", "1.0"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "ghcr.io/kube-warehouse/leaky-app",
        size: 17_900_000,
        behaviour: Behaviour::Leaky,
        cmd: &["/leaky-app"],
        programs: &["/leaky-app"],
        tags: &["latest", "1.0"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "ghcr.io/kube-warehouse/llm-server",
        size: 4_870_000_000,
        stop_ms: 2000,
        behaviour: Behaviour::LlmServer,
        entrypoint: &["python3", "-m", "llm_server"],
        programs: &["python3"],
        tags: &["latest", "1.0"],
        ..SERVER
    },
];

/// The repository part of an image reference: `docker.io/library/nginx:1.27` → `nginx`.
pub fn repository(image: &str) -> &str {
    let no_digest = image.split('@').next().unwrap_or(image);
    // A ':' after the last '/' starts the tag.
    let last_slash = no_digest.rfind('/').map(|i| i + 1).unwrap_or(0);
    let repo = match no_digest[last_slash..].find(':') {
        Some(i) => &no_digest[..last_slash + i],
        None => no_digest,
    };
    repo.strip_prefix("docker.io/library/")
        .or_else(|| repo.strip_prefix("docker.io/"))
        .or_else(|| repo.strip_prefix("library/"))
        .unwrap_or(repo)
}

/// The tag part of an image reference (`latest` when there is none, `None` for a
/// reference by digest only).
pub fn tag(image: &str) -> Option<&str> {
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last_slash = name.rfind('/').map(|i| i + 1).unwrap_or(0);
    match name[last_slash..].find(':') {
        Some(i) => Some(&name[last_slash + i + 1..]),
        None if digest.is_some() => None,
        None => Some("latest"),
    }
}

/// The fully qualified reference containerd resolves: `nginx` →
/// `docker.io/library/nginx:latest`.
pub fn full_reference(image: &str) -> String {
    let first = image.split('/').next().unwrap_or("");
    let has_host =
        image.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let mut r = if has_host {
        image.to_string()
    } else if image.contains('/') {
        format!("docker.io/{image}")
    } else {
        format!("docker.io/library/{image}")
    };
    if !r.contains('@') && tag(image) == Some("latest") && !image.ends_with(":latest") {
        r.push_str(":latest");
    }
    r
}

/// Registries the simulated nodes can reach.
const REGISTRIES: &[&str] = &[
    "docker.io",
    "registry-1.docker.io",
    "registry.k8s.io",
    "k8s.gcr.io",
    "gcr.io",
    "us-docker.pkg.dev",
    "quay.io",
    "ghcr.io",
    "mcr.microsoft.com",
    "public.ecr.aws",
];

/// Why pulling `image` fails, as containerd reports it to the kubelet; `None` when the
/// registry has it.
pub fn pull_error(image: &str) -> Option<String> {
    let full = full_reference(image);
    let host = full.split('/').next().unwrap_or("");
    if image.is_empty()
        || image.contains(char::is_whitespace)
        || image.chars().any(|c| c.is_ascii_uppercase())
    {
        return Some(format!(
            "rpc error: code = InvalidArgument desc = failed to pull and unpack image \"{image}\": invalid reference format"
        ));
    }
    if !REGISTRIES.contains(&host) {
        let bare = host.split(':').next().unwrap_or(host);
        let path = full[host.len()..].split([':', '@']).next().unwrap_or("");
        let reference = tag(image).unwrap_or("latest");
        return Some(format!(
            "rpc error: code = Unknown desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": failed to do request: Head \"https://{host}/v2{path}/manifests/{reference}\": dial tcp: lookup {bare}: no such host"
        ));
    }
    match lookup(image) {
        None if host == "docker.io" => Some(format!(
            "rpc error: code = Unknown desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed"
        )),
        None => Some(format!(
            "rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found"
        )),
        Some(info) => {
            let ok = match tag(image) {
                None => true,
                Some(t) => info.tags.iter().any(|p| tag_matches(p, t)),
            };
            (!ok).then(|| {
                format!(
                    "rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found"
                )
            })
        }
    }
}

/// Whether a registry's tag pattern has `tag`: an exact tag, or a pattern where
/// `#` is one digit and a final `*` the rest of the tag. A number is not cut in
/// the middle: after a pattern that ends in a digit, the rest must start with
/// something else, so `1.2#*` has `1.29`, `1.29.1` and `1.29-alpine` but not
/// `1.299`, and `3*` has `3.20` but not `30`.
pub fn tag_matches(pattern: &str, tag: &str) -> bool {
    let (head, rest_allowed) = match pattern.strip_suffix('*') {
        Some(h) => (h, true),
        None => (pattern, false),
    };
    let (mut p, mut t) = (head.chars(), tag.chars());
    loop {
        match (p.next(), t.clone().next()) {
            (None, _) => break,
            (Some('#'), Some(c)) if c.is_ascii_digit() => {}
            (Some(a), Some(c)) if a == c => {}
            _ => return false,
        }
        t.next();
    }
    let rest = t.as_str();
    if !rest_allowed {
        return rest.is_empty();
    }
    let ends_in_digit = head.ends_with(|c: char| c.is_ascii_digit() || c == '#');
    !(ends_in_digit && rest.starts_with(|c: char| c.is_ascii_digit()))
}

pub fn lookup(image: &str) -> Option<&'static ImageInfo> {
    let repo = repository(image);
    CATALOGUE.iter().find(|i| i.repository == repo)
}

pub fn size(image: &str) -> u64 {
    lookup(image).map(|i| i.size).unwrap_or(DEFAULT_SIZE)
}

/// Time to pull `image` onto a node that does not have it, in ms.
pub fn pull_ms(image: &str) -> u64 {
    500 + size(image) * 1000 / PULL_BYTES_PER_SEC
}

pub fn stop_ms(image: &str) -> u64 {
    lookup(image).map(|i| i.stop_ms).unwrap_or(500)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_strip_tags_digests_and_docker_hub_prefixes() {
        assert_eq!(repository("nginx:1.27"), "nginx");
        assert_eq!(repository("docker.io/library/nginx:1.27"), "nginx");
        assert_eq!(
            repository("registry.k8s.io/pause:3.10"),
            "registry.k8s.io/pause"
        );
        assert_eq!(repository("localhost:5000/app"), "localhost:5000/app");
        assert_eq!(repository("nginx@sha256:abc"), "nginx");
    }

    #[test]
    fn tag_patterns_do_not_cut_a_number() {
        for (pattern, tag, has) in [
            ("1.2#*", "1.29", true),
            ("1.2#*", "1.27.3", true),
            ("1.2#*", "1.28-alpine", true),
            ("1.2#*", "1.299", false),
            ("1.2#*", "1.2", false),
            ("3*", "3.20", true),
            ("3*", "3", true),
            ("3*", "30", false),
            ("v1.*", "v1.31.0", true),
            ("alpine*", "alpine3.20", true),
            ("latest", "latest", true),
            ("latest", "latest2", false),
        ] {
            assert_eq!(tag_matches(pattern, tag), has, "{pattern} {tag}");
        }
        assert!(pull_error("nginx:1.299").is_some());
        assert!(pull_error("nginx:1.29").is_none());
    }

    #[test]
    fn unknown_repositories_and_tags_do_not_pull() {
        assert_eq!(pull_error("nginx:1.27"), None);
        assert_eq!(pull_error("docker.io/library/nginx:1.27"), None);
        assert_eq!(pull_error("busybox"), None);
        assert_eq!(pull_error("registry.k8s.io/pause:3.10"), None);
        assert!(pull_error("nginx:1.99").unwrap().contains(
            "failed to resolve reference \"docker.io/library/nginx:1.99\": docker.io/library/nginx:1.99: not found"
        ));
        assert!(pull_error("nginxx").unwrap().contains("pull access denied"));
        assert!(pull_error("localhost:5000/app")
            .unwrap()
            .contains("lookup localhost: no such host"));
        assert_eq!(full_reference("nginx"), "docker.io/library/nginx:latest");
    }

    #[test]
    fn the_images_of_the_docs_examples_and_goldens_pull() {
        for image in [
            "bprashanth/nginxhttps:1.0",
            "busybox",
            "busybox:1.28",
            "busybox:1.36",
            "debian",
            "docker.io/corelab/gb-frontend:v5",
            "docker.io/curlimages/curl:8.18.0",
            "docker.io/library/bash",
            "docker.io/library/bash:5",
            "docker.io/library/busybox",
            "docker.io/redis:6.0.5",
            "gcr.io/google-samples/hello-app:1.0",
            "gcr.io/google-samples/hello-app:2.0",
            "gcr.io/google-samples/hello-frontend:1.0",
            "gcr.io/google-samples/hello-go-gke:1.0",
            "k8s.gcr.io/fluentd-elasticsearch:1.20",
            "k8s.gcr.io/pause:2.0",
            "nginx",
            "nginx:1.14.2",
            "nginx:1.15",
            "nginx:1.16.1",
            "nginx:1.27",
            "nginx:1.28",
            "perl",
            "polinux/stress",
            "python",
            "quay.io/fluentd_elasticsearch/fluentd:v2.5.2",
            "quay.io/fluentd_elasticsearch/fluentd:v5.0.1",
            "redis",
            "redis:7.4",
            "registry.k8s.io/busybox:1.27.2",
            "registry.k8s.io/coredns/coredns:v1.13.1",
            "registry.k8s.io/e2e-test-images/agnhost:2.40",
            "registry.k8s.io/etcd:3.5.1-0",
            "registry.k8s.io/goproxy:0.1",
            "registry.k8s.io/hpa-example",
            "registry.k8s.io/nginx-slim:0.24",
            "registry.k8s.io/nginx-slim:0.7",
            "registry.k8s.io/pause:3.8",
            "registry.k8s.io/pause:3.10",
            "registry.k8s.io/kube-proxy:v1.34.1",
            "us-docker.pkg.dev/google-samples/containers/gke/gb-redis-follower:v2",
            "vish/stress",
            "gcr.io/google-samples/kubernetes-bootcamp:v1",
            "docker.io/jocatalin/kubernetes-bootcamp:v2",
        ] {
            assert_eq!(pull_error(image), None, "{image}");
        }
    }

    #[test]
    fn every_catalogue_image_pulls_with_its_tags() {
        for info in CATALOGUE {
            let t = info.tags[0].trim_end_matches('*');
            let t = if t.ends_with('.') {
                format!("{t}1")
            } else {
                t.to_string()
            };
            let image = format!("{}:{t}", info.repository);
            assert_eq!(pull_error(&image), None, "{image}");
        }
    }

    #[test]
    fn the_tutorials_bootcamp_v2_exists_and_v10_does_not() {
        assert_eq!(
            pull_error("docker.io/jocatalin/kubernetes-bootcamp:v2"),
            None
        );
        assert_eq!(
            pull_error("gcr.io/google-samples/kubernetes-bootcamp:v2"),
            None
        );
        let v10 = pull_error("gcr.io/google-samples/kubernetes-bootcamp:v10").unwrap();
        assert!(v10.contains("code = NotFound"), "{v10}");
        assert!(v10.contains("kubernetes-bootcamp:v10: not found"), "{v10}");
    }

    #[test]
    fn each_bootcamp_server_js_names_its_version() {
        let js = |image: &str| lookup(image).unwrap().files[0].1;
        assert!(js("gcr.io/google-samples/kubernetes-bootcamp:v1").contains("| v=1\\n`"));
        assert!(js("docker.io/jocatalin/kubernetes-bootcamp:v2").contains("| v=2\\n`"));
    }
}
