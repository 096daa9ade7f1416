//! A controller that exists only in tests, to show what adding one costs: this file
//! and one line in [`super::manager::CONTROLLERS`]. It watches ConfigMaps labelled
//! `echo: "on"` and writes how many data keys each holds into its `echo/keys`
//! annotation. For a ConfigMap labelled `echo: "fail"` it writes an annotation
//! past the 256 KiB limit, which the apiserver refuses: the tests below watch the
//! failed reconcile come back after the work queue's growing back-off. It would
//! take labelled Events too, had the apiserver sent it any: it never does.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};

pub(crate) const ID: ControllerId = ControllerId::new("echo-controller");
const ANNOTATION: &str = "echo/keys";

pub(crate) struct EchoController;

impl Controller for EchoController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let labelled = ev.object.meta().labels.as_ref().and_then(|l| l.get("echo"));
        if matches!(ev.object.kind(), Kind::ConfigMap | Kind::Event)
            && ev.event_type != EventType::Deleted
            && labelled.is_some()
        {
            keys.push(ev.object.key());
        }
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        let Some(Object::ConfigMap(cm)) = c.store.get(key).cloned() else {
            return Action::Done;
        };
        let count = cm.data.as_ref().map_or(0, |d| d.len()).to_string();
        let annotations = cm.metadata.annotations.clone().unwrap_or_default();
        if annotations.get(ANNOTATION) == Some(&count) {
            return Action::Done;
        }
        let mut updated = cm;
        let fail = updated.metadata.labels.as_ref().and_then(|l| l.get("echo"))
            == Some(&"fail".to_string());
        if fail {
            // Too long for an annotation value: the apiserver refuses the write.
            let huge = "x".repeat(300 * 1024);
            updated.metadata.annotations = Some([(ANNOTATION.to_string(), huge)].into());
        } else {
            updated.metadata.annotations = Some([(ANNOTATION.to_string(), count)].into());
        }
        match c.update_as(Actor::Controller(ID.name()), Object::ConfigMap(updated)) {
            Ok(_) => Action::Done,
            Err(_) => Action::Requeue,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::object::manifest::decode_manifests;
    use crate::time::SimDuration;
    use crate::{Cluster, Kind, Topology};

    fn config_map(label: &str) -> crate::Object {
        let yaml = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels:\n    echo: \"{label}\"\ndata:\n  a: \"1\"\n  b: \"2\"\n"
        );
        decode_manifests(&yaml).unwrap().remove(0)
    }

    #[test]
    fn a_registered_controller_is_told_of_changes_and_writes_under_its_name() {
        let mut c = Cluster::new(1, Topology::default());
        c.create(config_map("on")).unwrap();
        c.advance(SimDuration::secs(1));
        let cm = c.get(Kind::ConfigMap, "default", "settings").unwrap();
        let annotations = cm.meta().annotations.clone().unwrap_or_default();
        assert_eq!(annotations.get("echo/keys").map(String::as_str), Some("2"));
        let writer = c
            .requests()
            .rev()
            .find(|r| r.verb == "update" && r.name == "settings")
            .expect("the controller's update was recorded");
        assert_eq!(
            writer.user,
            "system:serviceaccount:kube-system:echo-controller"
        );
    }

    /// The components a write of `kind` named `name` was delivered to, by the feed.
    fn notified(c: &Cluster, kind: &str, name: &str) -> Vec<String> {
        c.feed_since(0)
            .events
            .find_map(|e| match e {
                crate::views::feed::FeedEvent::Write {
                    kind: k,
                    name: n,
                    notified,
                    ..
                } if *k == kind && n == name => Some(notified.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no write of {kind} {name}"))
    }

    #[test]
    fn events_are_not_sent_to_controllers() {
        let mut c = Cluster::new(1, Topology::default());
        c.create(config_map("on")).unwrap();
        let event = decode_manifests(
            "apiVersion: v1\nkind: Event\nmetadata:\n  name: settings.1\n  labels:\n    echo: \"on\"\ninvolvedObject:\n  kind: ConfigMap\n  name: settings\nreason: Tested\n",
        )
        .unwrap()
        .remove(0);
        c.create(event).unwrap();
        assert!(notified(&c, "ConfigMap", "settings").contains(&"echo-controller".to_string()));
        assert_eq!(notified(&c, "Event", "settings.1"), Vec::<String>::new());
    }

    #[test]
    fn a_failed_reconcile_comes_back_with_a_growing_back_off() {
        let mut c = Cluster::new(1, Topology::default());
        c.create(config_map("fail")).unwrap();
        c.advance(SimDuration::secs(1));
        let attempts = |c: &Cluster| {
            c.requests()
                .filter(|r| r.verb == "update" && r.name == "settings")
                .count()
        };
        // 5 ms, 10 ms, 20 ms, … : within one second, about eight tries.
        let first = attempts(&c);
        assert!((6..=10).contains(&first), "{first} attempts in 1 s");
        c.advance(SimDuration::secs(1));
        let second = attempts(&c) - first;
        assert!(second <= 2, "{second} attempts in the next second");
    }
}
