//! Plain-language lines about what just happened on the floor and what will happen
//! next, with live countdowns from `Cluster::countdowns` (the simulation's own due
//! times) and notable events of the change feed. English and Russian, warehouse or
//! Kubernetes words.

use crate::i18n::{Lang, Names, Tr};
use crate::office::Gate;
use warehouse_sim::views::countdown::{Countdown, CountdownKind};

/// How long (simulated ms) a notable event stays in the narration.
pub const NOTABLE_FOR_MS: u64 = 90_000;
/// At most this many lines.
pub const MAX_LINES: usize = 5;

/// Something the feed or the view told that a learner should hear about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notable {
    Refused {
        at_ms: u64,
        what: String,
        code: u16,
        gate: Gate,
    },
    NotReady {
        at_ms: u64,
        zone: String,
    },
    Evicted {
        at_ms: u64,
        zone: Option<String>,
        count: usize,
    },
    Replaced {
        at_ms: u64,
        count: usize,
    },
    /// Robots the dispatcher (scheduler) preempted to make room for a robot of
    /// higher priority.
    Preempted {
        at_ms: u64,
        zone: Option<String>,
        count: usize,
    },
    /// Orders of a traffic source that a fence (NetworkPolicy) dropped.
    Fenced {
        at_ms: u64,
        source: String,
    },
    /// The Gateway controller wrote a sorting gate's (Gateway's) status.
    Gate {
        at_ms: u64,
        name: String,
    },
}

impl Notable {
    fn at(&self) -> u64 {
        match self {
            Notable::Refused { at_ms, .. }
            | Notable::NotReady { at_ms, .. }
            | Notable::Evicted { at_ms, .. }
            | Notable::Preempted { at_ms, .. }
            | Notable::Replaced { at_ms, .. }
            | Notable::Fenced { at_ms, .. }
            | Notable::Gate { at_ms, .. } => *at_ms,
        }
    }

    /// Gives an event without a time (0) the simulated time it was seen at.
    pub fn stamp(&mut self, now: u64) {
        match self {
            Notable::Evicted { at_ms, .. }
            | Notable::Preempted { at_ms, .. }
            | Notable::Replaced { at_ms, .. }
            | Notable::Fenced { at_ms, .. }
            | Notable::Gate { at_ms, .. }
                if *at_ms == 0 =>
            {
                *at_ms = now
            }
            _ => {}
        }
    }
}

/// `4:12` for minutes, `32 s` below a minute.
pub fn left(lang: Lang, ms: u64) -> String {
    let s = ms.div_ceil(1000);
    if s >= 60 {
        format!("{}:{:02}", s / 60, s % 60)
    } else {
        match lang {
            Lang::En => format!("{s} s"),
            Lang::Ru => format!("{s} с"),
        }
    }
}

fn short_pod(subject: &str) -> &str {
    subject.split_once('/').map_or(subject, |(_, n)| n)
}

fn robots(tr: Tr, n: usize) -> String {
    match (tr.lang, tr.names) {
        (Lang::En, Names::Warehouse) => format!("{n} robot{}", if n == 1 { "" } else { "s" }),
        (Lang::En, Names::Kubernetes) => format!("{n} pod{}", if n == 1 { "" } else { "s" }),
        (Lang::Ru, Names::Warehouse) => {
            crate::numbers::ru_count(n as u64, "робот", "робота", "роботов")
        }
        (Lang::Ru, Names::Kubernetes) => crate::numbers::ru_count(n as u64, "под", "пода", "подов"),
    }
}

/// The heading above the office.
pub fn heading(tr: Tr) -> &'static str {
    match (tr.lang, tr.names) {
        (Lang::En, Names::Warehouse) => "The office and the dock: what is happening",
        (Lang::En, Names::Kubernetes) => "Control plane and data plane, live",
        (Lang::Ru, Names::Warehouse) => "Контора и док: что происходит",
        (Lang::Ru, Names::Kubernetes) => "Плоскость управления и плоскость данных",
    }
}

fn countdown_line(tr: Tr, now: u64, c: &Countdown) -> String {
    let rem = left(tr.lang, c.due_ms.saturating_sub(now));
    let wh = tr.names == Names::Warehouse;
    match (c.kind, tr.lang) {
        (CountdownKind::NodeGrace, Lang::En) => {
            let wait = (c.due_ms - c.since_ms) / 1000;
            if wh {
                format!(
                    "Zone {} stopped reporting. The zone clerk waits {wait} s ({rem} left) before marking it not ready.",
                    c.subject
                )
            } else {
                format!(
                    "Node {} stopped sending heartbeats. The node-lifecycle-controller waits {wait} s ({rem} left) before marking it NotReady.",
                    c.subject
                )
            }
        }
        (CountdownKind::NodeGrace, Lang::Ru) => {
            let wait = (c.due_ms - c.since_ms) / 1000;
            if wh {
                format!(
                    "Зона {} перестала выходить на связь. Учётчик зон ждёт {wait} с (осталось {rem}), потом пометит её неготовой.",
                    c.subject
                )
            } else {
                format!(
                    "Узел {} перестал присылать heartbeat. node-lifecycle-controller ждёт {wait} с (осталось {rem}), потом поставит NotReady.",
                    c.subject
                )
            }
        }
        (CountdownKind::Eviction, Lang::En) => format!(
            "Eviction of {} from {} {} in {rem}; their owners will make replacements elsewhere.",
            robots(tr, c.count),
            if wh { "zone" } else { "node" },
            c.subject
        ),
        (CountdownKind::Eviction, Lang::Ru) => format!(
            "Выселение: {} из {} {} через {rem}; владельцы создадут замену в других местах.",
            robots(tr, c.count),
            if wh { "зоны" } else { "узла" },
            c.subject
        ),
        (CountdownKind::Restart, Lang::En) => format!(
            "{} {} crashed; next restart in {rem} (back-off).",
            if wh { "Robot" } else { "Pod" },
            short_pod(&c.subject)
        ),
        (CountdownKind::Restart, Lang::Ru) => format!(
            "{} {} упал; следующий перезапуск через {rem} (нарастающая пауза).",
            if wh { "Робот" } else { "Под" },
            short_pod(&c.subject)
        ),
        (CountdownKind::PullRetry, Lang::En) => format!(
            "{} {} could not get its image; next try in {rem}.",
            if wh { "Robot" } else { "Pod" },
            short_pod(&c.subject)
        ),
        (CountdownKind::PullRetry, Lang::Ru) => format!(
            "{} {} не смог получить образ; следующая попытка через {rem}.",
            if wh { "Робот" } else { "Под" },
            short_pod(&c.subject)
        ),
    }
}

fn gate_name(tr: Tr, gate: Gate) -> &'static str {
    match (tr.lang, gate) {
        (Lang::En, Gate::Badge) => "the badge check (authentication)",
        (Lang::En, Gate::Permission) => "the permission check (authorization)",
        (Lang::En, Gate::Policy) => "the policy check (admission, validation)",
        (Lang::En, Gate::Vault) => "the ledger vault (etcd)",
        (Lang::Ru, Gate::Badge) => "проверке пропуска (аутентификация)",
        (Lang::Ru, Gate::Permission) => "проверке разрешений (авторизация)",
        (Lang::Ru, Gate::Policy) => "проверке правил (контроль допуска, валидация)",
        (Lang::Ru, Gate::Vault) => "хранилище журнала (etcd)",
    }
}

fn notable_line(tr: Tr, n: &Notable) -> String {
    let wh = tr.names == Names::Warehouse;
    match (n, tr.lang) {
        // An eviction a PodDisruptionBudget holds back: the eviction handler's answer,
        // not a refusal of the ledger vault.
        (Notable::Refused { what, code, .. }, lang)
            if *code == 429 && what.ends_with("/eviction") =>
        {
            match (lang, wh) {
                (Lang::En, true) => format!(
                    "The reception desk held back “{what}”: the staffing minimum lets no robot leave now ({code}); kubectl drain asks again in 5 s."
                ),
                (Lang::En, false) => format!(
                    "Eviction “{what}” refused: a PodDisruptionBudget allows no disruption now ({code} Too Many Requests); kubectl drain retries in 5 s."
                ),
                (Lang::Ru, true) => format!(
                    "Стойка регистрации придержала «{what}»: минимум смены сейчас не позволяет отпустить робота ({code}); kubectl drain спросит снова через 5 с."
                ),
                (Lang::Ru, false) => format!(
                    "Вытеснение «{what}» отклонено: PodDisruptionBudget сейчас не разрешает прерываний ({code} Too Many Requests); kubectl drain повторит через 5 с."
                ),
            }
        }
        (
            Notable::Refused {
                what, code, gate, ..
            },
            Lang::En,
        ) => format!(
            "Request “{what}” was refused at {} ({code}).",
            gate_name(tr, *gate)
        ),
        (
            Notable::Refused {
                what, code, gate, ..
            },
            Lang::Ru,
        ) => format!(
            "Запрос «{what}» отклонён на {} ({code}).",
            gate_name(tr, *gate)
        ),
        (Notable::NotReady { zone, .. }, Lang::En) => {
            if wh {
                format!("The zone clerk marked zone {zone} not ready; its robots get a 300 s permit before eviction.")
            } else {
                format!("Node {zone} is NotReady; its pods tolerate the taint for 300 s before eviction.")
            }
        }
        (Notable::NotReady { zone, .. }, Lang::Ru) => {
            if wh {
                format!("Учётчик зон пометил зону {zone} неготовой; у её роботов есть разрешение на 300 с до выселения.")
            } else {
                format!(
                    "Узел {zone} в статусе NotReady; его поды терпят taint 300 с до вытеснения."
                )
            }
        }
        (Notable::Evicted { zone, count, .. }, Lang::En) => match zone {
            Some(z) => format!(
                "{} evicted from {} {z}.",
                robots(tr, *count),
                if wh { "zone" } else { "node" }
            ),
            None => format!("{} evicted.", robots(tr, *count)),
        },
        (Notable::Evicted { zone, count, .. }, Lang::Ru) => match zone {
            Some(z) => format!(
                "Выселено из {} {z}: {}.",
                if wh { "зоны" } else { "узла" },
                robots(tr, *count)
            ),
            None => format!("Выселено: {}.", robots(tr, *count)),
        },
        (Notable::Gate { name, .. }, Lang::En) => {
            if wh {
                format!("The gate builder (cloud-provider-kind) wrote the state of the sorting gate {name}: its address and the route cards it took.")
            } else {
                format!("cloud-provider-kind updated the status of Gateway {name}: its address, listeners and attached HTTPRoutes.")
            }
        }
        (Notable::Gate { name, .. }, Lang::Ru) => {
            if wh {
                format!("Строитель ворот (cloud-provider-kind) записал состояние сортировочных ворот {name}: их адрес и принятые маршрутные карты.")
            } else {
                format!("cloud-provider-kind обновил статус Gateway {name}: адрес, слушатели и прикреплённые HTTPRoute.")
            }
        }
        (Notable::Preempted { zone, count, .. }, Lang::En) => {
            let place = zone
                .as_ref()
                .map(|z| format!(" from {} {z}", if wh { "zone" } else { "node" }))
                .unwrap_or_default();
            if wh {
                format!(
                    "The dispatcher sent {}{place} away to make room for a more important robot (preemption).",
                    robots(tr, *count)
                )
            } else {
                format!(
                    "{} preempted{place} for a pod of higher priority.",
                    robots(tr, *count)
                )
            }
        }
        (Notable::Preempted { zone, count, .. }, Lang::Ru) => {
            let place = zone
                .as_ref()
                .map(|z| format!(" из {} {z}", if wh { "зоны" } else { "узла" }))
                .unwrap_or_default();
            if wh {
                format!(
                    "Диспетчер убрал{place}, чтобы освободить место более важному роботу (preemption): {}.",
                    robots(tr, *count)
                )
            } else {
                format!(
                    "Вытеснено{place} ради пода с более высоким приоритетом: {}.",
                    robots(tr, *count)
                )
            }
        }
        (Notable::Fenced { source, .. }, Lang::En) => {
            if wh {
                format!("A fence (NetworkPolicy) stops the orders of {source}: nobody answers, and the sender gives up when its time is out.")
            } else {
                format!("A NetworkPolicy drops the connections of traffic {source}; the clients time out.")
            }
        }
        (Notable::Fenced { source, .. }, Lang::Ru) => {
            if wh {
                format!("Ограждение (NetworkPolicy) останавливает заказы {source}: никто не отвечает, и отправитель сдаётся по тайм-ауту.")
            } else {
                format!("NetworkPolicy отбрасывает соединения трафика {source}; клиенты получают тайм-аут.")
            }
        }
        (Notable::Replaced { count, .. }, Lang::En) => format!(
            "The {} made {} to replace them; the {} places them.",
            if wh {
                "ReplicaSet clerk"
            } else {
                "replicaset-controller"
            },
            if *count == 1 {
                "a new one".to_string()
            } else {
                format!("{count} new ones")
            },
            if wh {
                "zone dispatcher"
            } else {
                "kube-scheduler"
            }
        ),
        (Notable::Replaced { count, .. }, Lang::Ru) => format!(
            "{} создал замену: {}; {} назначит им места.",
            if wh {
                "Учётчик ReplicaSet"
            } else {
                "replicaset-controller"
            },
            robots(tr, *count),
            if wh {
                "диспетчер зон"
            } else {
                "kube-scheduler"
            }
        ),
    }
}

/// The narration: countdowns first (what will happen), then the latest notable events
/// (what just happened), newest first.
pub fn lines(
    tr: Tr,
    now: u64,
    countdowns: &[Countdown],
    notable: &std::collections::VecDeque<Notable>,
    down: &[(String, bool)],
) -> Vec<String> {
    let mut out: Vec<String> = countdowns
        .iter()
        .take(3)
        .map(|c| countdown_line(tr, now, c))
        .collect();
    // Replacements after evictions are only worth saying next to them.
    let evicted_lately = notable.iter().any(|n| {
        matches!(n, Notable::Evicted { .. }) && now.saturating_sub(n.at()) < NOTABLE_FOR_MS
    });
    for n in notable.iter().rev() {
        if out.len() >= MAX_LINES {
            break;
        }
        if now.saturating_sub(n.at()) >= NOTABLE_FOR_MS {
            continue;
        }
        if matches!(n, Notable::Replaced { .. }) && !evicted_lately {
            continue;
        }
        let line = notable_line(tr, n);
        if !out.contains(&line) {
            out.push(line);
        }
    }
    // Zones that are down stay said while they are.
    let wh = tr.names == Names::Warehouse;
    for (zone, not_ready) in down {
        // A zone still in its grace period has its countdown line already.
        if out.len() >= MAX_LINES || !not_ready {
            continue;
        }
        out.push(match (tr.lang, wh) {
            (Lang::En, true) => format!("Zone {zone} is not ready: no new robots go there."),
            (Lang::En, false) => {
                format!("Node {zone} is NotReady: the scheduler places no new pods there.")
            }
            (Lang::Ru, true) => format!("Зона {zone} не готова: новых роботов туда не отправляют."),
            (Lang::Ru, false) => {
                format!("Узел {zone} в статусе NotReady: планировщик не ставит туда новые поды.")
            }
        });
    }
    if out.is_empty() {
        out.push(
            match tr.lang {
                Lang::En => "All quiet: every zone reports, nothing is waiting.",
                Lang::Ru => "Всё спокойно: все зоны на связи, ничего не ждёт своей очереди.",
            }
            .to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countdowns_read_as_sentences_with_time_left() {
        let c = Countdown {
            kind: CountdownKind::NodeGrace,
            subject: "zone-b".into(),
            container: None,
            count: 0,
            since_ms: 0,
            due_ms: 50_000,
        };
        let tr = Tr::new(Lang::En, Names::Warehouse);
        let l = lines(
            tr,
            18_000,
            std::slice::from_ref(&c),
            &Default::default(),
            &[],
        );
        assert_eq!(
            l[0],
            "Zone zone-b stopped reporting. The zone clerk waits 50 s (32 s left) before marking it not ready."
        );
        let e = Countdown {
            kind: CountdownKind::Eviction,
            count: 3,
            due_ms: 18_000 + 252_000,
            ..c
        };
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        let l = lines(ru, 18_000, &[e], &Default::default(), &[]);
        assert!(
            l[0].contains("3\u{a0}робота") && l[0].contains("через 4:12"),
            "{}",
            l[0]
        );
    }

    #[test]
    fn old_events_fall_out_and_quiet_is_said() {
        let mut n = std::collections::VecDeque::new();
        n.push_back(Notable::NotReady {
            at_ms: 1_000,
            zone: "zone-b".into(),
        });
        let tr = Tr::new(Lang::En, Names::Kubernetes);
        assert!(lines(tr, 2_000, &[], &n, &[])[0].contains("NotReady"));
        assert!(lines(tr, 1_000 + NOTABLE_FOR_MS, &[], &n, &[])[0].starts_with("All quiet"));
    }

    #[test]
    fn an_eviction_a_budget_holds_back_is_not_blamed_on_the_vault() {
        let refused = |what: &str, code| Notable::Refused {
            at_ms: 0,
            what: what.into(),
            code,
            gate: Gate::Vault,
        };
        let tr = Tr::new(Lang::En, Names::Warehouse);
        let held = notable_line(tr, &refused("create pods/web-1/eviction", 429));
        assert!(held.contains("staffing minimum"), "{held}");
        assert!(!held.contains("ledger vault"), "{held}");
        let ru = notable_line(
            Tr::new(Lang::Ru, Names::Kubernetes),
            &refused("create pods/web-1/eviction", 429),
        );
        assert!(ru.contains("PodDisruptionBudget"), "{ru}");
        // Any other refusal still names its gate.
        let other = notable_line(tr, &refused("create deployments/web", 409));
        assert!(other.contains("ledger vault"), "{other}");
    }
}
