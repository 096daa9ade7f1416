//! The software depot: a catalogue of images the simulated runtime knows, with sizes
//! that set pull times. Images not in the catalogue are treated as a generic
//! long-running server of [`DEFAULT_SIZE`].

/// Bytes per simulated second a node pulls at.
pub const PULL_BYTES_PER_SEC: u64 = 25 * 1024 * 1024;
/// Size assumed for an image the catalogue does not list.
pub const DEFAULT_SIZE: u64 = 60 * 1024 * 1024;

pub struct ImageInfo {
    pub repository: &'static str,
    pub size: u64,
    /// How long the process takes to exit after SIGTERM, in ms.
    pub stop_ms: u64,
}

pub const CATALOGUE: &[ImageInfo] = &[
    ImageInfo {
        repository: "nginx",
        size: 72_099_410,
        stop_ms: 300,
    },
    ImageInfo {
        repository: "busybox",
        size: 4_261_550,
        stop_ms: 100,
    },
    ImageInfo {
        repository: "redis",
        size: 45_640_123,
        stop_ms: 200,
    },
    ImageInfo {
        repository: "httpd",
        size: 58_400_000,
        stop_ms: 300,
    },
    ImageInfo {
        repository: "registry.k8s.io/pause",
        size: 320_368,
        stop_ms: 50,
    },
    // The cluster's own images (compressed sizes of the amd64 images).
    ImageInfo {
        repository: "registry.k8s.io/kube-proxy",
        size: 30_900_000,
        stop_ms: 200,
    },
    ImageInfo {
        repository: "registry.k8s.io/coredns/coredns",
        size: 22_400_000,
        stop_ms: 200,
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-apiserver",
        size: 28_900_000,
        stop_ms: 1000,
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-controller-manager",
        size: 26_400_000,
        stop_ms: 300,
    },
    ImageInfo {
        repository: "registry.k8s.io/kube-scheduler",
        size: 20_700_000,
        stop_ms: 300,
    },
    ImageInfo {
        repository: "registry.k8s.io/etcd",
        size: 23_200_000,
        stop_ms: 500,
    },
    ImageInfo {
        repository: "registry.k8s.io/hpa-example",
        size: 188_000_000,
        stop_ms: 500,
    },
    ImageInfo {
        repository: "gcr.io/google-samples/gb-frontend",
        size: 134_000_000,
        stop_ms: 500,
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
