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
};

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

pub const CATALOGUE: &[ImageInfo] = &[
    ImageInfo {
        repository: "nginx",
        size: 72_099_410,
        entrypoint: &["/docker-entrypoint.sh"],
        cmd: &["nginx", "-g", "daemon off;"],
        programs: &["nginx", "/docker-entrypoint.sh"],
        ..SERVER
    },
    ImageInfo {
        repository: "busybox",
        size: 4_261_550,
        ..SHELL
    },
    ImageInfo {
        repository: "registry.k8s.io/busybox",
        size: 1_144_547,
        ..SHELL
    },
    ImageInfo {
        repository: "alpine",
        size: 3_653_000,
        cmd: &["/bin/sh"],
        ..SHELL
    },
    ImageInfo {
        repository: "debian",
        size: 48_490_000,
        cmd: &["bash"],
        ..SHELL
    },
    ImageInfo {
        repository: "ubuntu",
        size: 29_750_000,
        cmd: &["/bin/bash"],
        ..SHELL
    },
    ImageInfo {
        repository: "bash",
        size: 6_330_000,
        entrypoint: &["docker-entrypoint.sh"],
        cmd: &["bash"],
        ..SHELL
    },
    ImageInfo {
        repository: "curlimages/curl",
        size: 9_860_000,
        entrypoint: &["/entrypoint.sh"],
        cmd: &["curl", "--help"],
        ..SHELL
    },
    ImageInfo {
        repository: "perl",
        size: 335_400_000,
        stop_ms: 100,
        behaviour: Behaviour::Perl,
        cmd: &["perl", "-de0"],
        programs: &["perl"],
        ..SERVER
    },
    ImageInfo {
        repository: "python",
        size: 392_600_000,
        stop_ms: 100,
        behaviour: Behaviour::Python,
        cmd: &["python3"],
        programs: &["python", "python3"],
        ..SERVER
    },
    ImageInfo {
        repository: "redis",
        size: 45_640_123,
        stop_ms: 200,
        entrypoint: &["docker-entrypoint.sh"],
        cmd: &["redis-server"],
        programs: &["redis-server", "docker-entrypoint.sh"],
        ..SERVER
    },
    ImageInfo {
        repository: "httpd",
        size: 58_400_000,
        cmd: &["httpd-foreground"],
        programs: &["httpd-foreground", "httpd"],
        ..SERVER
    },
    ImageInfo {
        repository: "registry.k8s.io/nginx-slim",
        size: 51_800_000,
        cmd: &["nginx", "-g", "daemon off;"],
        programs: &["nginx"],
        ..SERVER
    },
    ImageInfo {
        repository: "bprashanth/nginxhttps",
        size: 83_000_000,
        cmd: &["/home/auto-reload-nginx.sh"],
        programs: &["nginx", "/home/auto-reload-nginx.sh"],
        ..SERVER
    },
    ImageInfo {
        repository: "gcr.io/google-samples/kubernetes-bootcamp",
        size: 75_900_000,
        cmd: &["/bin/sh", "-c", "node server.js"],
        programs: &["node"],
        ..SERVER
    },
    ImageInfo {
        repository: "gcr.io/google-samples/hello-app",
        size: 11_500_000,
        cmd: &["./hello-app"],
        programs: &["hello-app", "./hello-app"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "gcr.io/google-samples/hello-go-gke",
        size: 4_300_000,
        cmd: &["/hello"],
        programs: &["/hello", "hello"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "gcr.io/google-samples/hello-frontend",
        size: 53_900_000,
        cmd: &["nginx", "-g", "daemon off;"],
        programs: &["nginx"],
        ..SERVER
    },
    ImageInfo {
        repository: "gcr.io/google-samples/gb-frontend",
        size: 134_000_000,
        stop_ms: 500,
        cmd: &["apache2-foreground"],
        programs: &["apache2-foreground"],
        ..SERVER
    },
    ImageInfo {
        repository: "corelab/gb-frontend",
        size: 131_000_000,
        stop_ms: 500,
        cmd: &["apache2-foreground"],
        programs: &["apache2-foreground"],
        ..SERVER
    },
    ImageInfo {
        repository: "us-docker.pkg.dev/google-samples/containers/gke/gb-redis-follower",
        size: 39_600_000,
        cmd: &["/run.sh"],
        programs: &["/run.sh", "redis-server"],
        ..SERVER
    },
    ImageInfo {
        repository: "registry.k8s.io/e2e-test-images/agnhost",
        size: 51_000_000,
        entrypoint: &["/agnhost"],
        cmd: &["pause"],
        programs: &["/agnhost", "agnhost"],
        ..SERVER
    },
    ImageInfo {
        repository: "registry.k8s.io/goproxy",
        size: 2_500_000,
        cmd: &["/goproxy"],
        programs: &["/goproxy"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "k8s.gcr.io/fluentd-elasticsearch",
        size: 140_000_000,
        cmd: &["/run.sh"],
        programs: &["/run.sh", "td-agent"],
        ..SERVER
    },
    ImageInfo {
        repository: "quay.io/fluentd_elasticsearch/fluentd",
        size: 160_000_000,
        cmd: &["/run.sh"],
        programs: &["/run.sh", "fluentd"],
        ..SERVER
    },
    ImageInfo {
        repository: "polinux/stress",
        size: 4_200_000,
        stop_ms: 100,
        behaviour: Behaviour::Stress,
        cmd: &["stress", "--help"],
        programs: &["stress"],
        ..SHELL
    },
    ImageInfo {
        repository: "vish/stress",
        size: 2_300_000,
        stop_ms: 100,
        entrypoint: &["/stress", "-logtostderr"],
        programs: &["/stress"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/pause",
        size: 320_368,
        stop_ms: 50,
        behaviour: Behaviour::Pause,
        cmd: &["/pause"],
        programs: &["/pause"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "k8s.gcr.io/pause",
        size: 240_000,
        stop_ms: 50,
        behaviour: Behaviour::Pause,
        cmd: &["/pause"],
        programs: &["/pause"],
        ..DISTROLESS
    },
    // The cluster's own images (compressed sizes of the amd64 images).
    ImageInfo {
        repository: "registry.k8s.io/kube-proxy",
        size: 30_900_000,
        stop_ms: 200,
        entrypoint: &["/usr/local/bin/kube-proxy"],
        programs: &["/usr/local/bin/kube-proxy", "kube-proxy"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/coredns/coredns",
        size: 22_400_000,
        stop_ms: 200,
        entrypoint: &["/coredns"],
        programs: &["/coredns"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-apiserver",
        size: 28_900_000,
        stop_ms: 1000,
        programs: &["kube-apiserver"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-controller-manager",
        size: 26_400_000,
        programs: &["kube-controller-manager"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-scheduler",
        size: 20_700_000,
        programs: &["kube-scheduler"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/etcd",
        size: 23_200_000,
        stop_ms: 500,
        programs: &["etcd", "/usr/local/bin/etcd"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "registry.k8s.io/hpa-example",
        size: 188_000_000,
        stop_ms: 500,
        cmd: &["apache2-foreground"],
        programs: &["apache2-foreground"],
        ..SERVER
    },
    // The warehouse's teaching images.
    ImageInfo {
        repository: "ghcr.io/kube-warehouse/flaky-app",
        size: 18_300_000,
        behaviour: Behaviour::Flaky,
        cmd: &["/flaky-app"],
        programs: &["/flaky-app"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "ghcr.io/kube-warehouse/leaky-app",
        size: 17_900_000,
        behaviour: Behaviour::Leaky,
        cmd: &["/leaky-app"],
        programs: &["/leaky-app"],
        ..DISTROLESS
    },
    ImageInfo {
        repository: "ghcr.io/kube-warehouse/llm-server",
        size: 4_870_000_000,
        stop_ms: 2000,
        behaviour: Behaviour::LlmServer,
        entrypoint: &["python3", "-m", "llm_server"],
        programs: &["python3"],
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
}
