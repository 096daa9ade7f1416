//! The charts this simulated Helm ships, as the repository `warehouse`: each a real
//! chart folder under `crates/kubectl/charts/` (`Chart.yaml`, `values.yaml`,
//! `templates/*.yaml`, `templates/_helpers.tpl`, `templates/NOTES.txt`), compiled in,
//! so `helm install shop warehouse/web` works without a network.

use serde_json::Value;

/// One bundled chart: its name and files (path inside the chart, text).
pub(crate) struct Chart {
    pub name: &'static str,
    pub files: &'static [(&'static str, &'static str)],
}

macro_rules! chart_file {
    ($chart:literal, $path:literal) => {
        (
            $path,
            include_str!(concat!("../../charts/", $chart, "/", $path)),
        )
    };
}

/// The repository's name, as `helm repo list` shows it.
pub(crate) const REPOSITORY: &str = "warehouse";
/// Its address (the charts are bundled: nothing is fetched from it).
pub(crate) const REPOSITORY_URL: &str = "https://charts.warehouse.local";

pub(crate) const CHARTS: &[Chart] = &[
    Chart {
        name: "redis",
        files: &[
            chart_file!("redis", "Chart.yaml"),
            chart_file!("redis", "values.yaml"),
            chart_file!("redis", "templates/_helpers.tpl"),
            chart_file!("redis", "templates/NOTES.txt"),
            chart_file!("redis", "templates/service.yaml"),
            chart_file!("redis", "templates/statefulset.yaml"),
        ],
    },
    Chart {
        name: "web",
        files: &[
            chart_file!("web", "Chart.yaml"),
            chart_file!("web", "values.yaml"),
            chart_file!("web", "templates/_helpers.tpl"),
            chart_file!("web", "templates/NOTES.txt"),
            chart_file!("web", "templates/deployment.yaml"),
            chart_file!("web", "templates/ingress.yaml"),
            chart_file!("web", "templates/service.yaml"),
        ],
    },
];

impl Chart {
    pub fn file(&self, path: &str) -> &'static str {
        self.files
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| *t)
            .unwrap_or("")
    }

    /// `Chart.yaml` as JSON.
    pub fn metadata(&self) -> Value {
        serde_yaml::from_str(self.file("Chart.yaml")).unwrap_or(Value::Null)
    }

    fn field(&self, key: &str) -> String {
        self.metadata()
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }

    pub fn version(&self) -> String {
        self.field("version")
    }

    pub fn app_version(&self) -> String {
        self.field("appVersion")
    }

    pub fn description(&self) -> String {
        self.field("description")
    }

    /// `values.yaml` as JSON (an empty map when it holds nothing).
    pub fn values(&self) -> Value {
        match serde_yaml::from_str::<Value>(self.file("values.yaml")) {
            Ok(Value::Object(m)) => Value::Object(m),
            _ => Value::Object(Default::default()),
        }
    }
}

/// The chart a reference names (`warehouse/web`), or Helm's error for it.
pub(crate) fn find(reference: &str, version: Option<&str>) -> Result<&'static Chart, String> {
    let Some((repo, name)) = reference.split_once('/') else {
        return Err(format!(
            "non-absolute URLs should be in form of repo_name/path_to_chart, got: {reference}"
        ));
    };
    if repo != REPOSITORY {
        return Err(format!("repo {repo} not found"));
    }
    let version_text = version.unwrap_or("");
    let chart = CHARTS.iter().find(|c| c.name == name).ok_or_else(|| {
        format!(
            "chart \"{name}\" matching {version_text} not found in {REPOSITORY} index. (try 'helm repo update'): no chart name found"
        )
    })?;
    match version {
        Some(v) if v != chart.version() => Err(format!(
            "chart \"{name}\" matching {v} not found in {REPOSITORY} index. (try 'helm repo update'): no chart version found for {name}-{v}"
        )),
        _ => Ok(chart),
    }
}

/// A chart by its own name (what a stored release records).
pub(crate) fn by_name(name: &str) -> Option<&'static Chart> {
    CHARTS.iter().find(|c| c.name == name)
}
