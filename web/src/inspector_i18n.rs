//! The inspector's labels, in English and Russian, in warehouse and Kubernetes words
//! (the same four-way table as `i18n.rs`, kept beside the inspector).

use crate::i18n::{Key, Lang, Names, Tr};
use warehouse_sim::{ControlPlaneComponent, VolumeView};

/// A label of the inspector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum I {
    Close,
    Inspect,
    Describe,
    Yaml,
    Events,
    Why,
    WhyZone,
    Role,
    RawTrace,
    WhyHint,
    YamlHint,
    DeleteRobot,
    DeleteDesk,
    Cordon,
    Uncordon,
    Cordoned,
    RobotsHere,
    NoRobots,
    Sheets,
    ShowZone,
    KindRobot,
    KindZone,
    KindDesk,
    KindSheet,
    KindBudget,
    KindFence,
    KindGate,
    KindSchedule,
    KindGauge,
    KindLocker,
    LockerUsers,
    KindStaff,
    Down,
    StaffPod,
}

/// Picks from `[english warehouse, english kubernetes, russian warehouse, russian
/// kubernetes]` (the timeline's labels use it too).
pub(crate) fn pick(tr: Tr, texts: [&'static str; 4]) -> &'static str {
    match (tr.lang, tr.names) {
        (Lang::En, Names::Warehouse) => texts[0],
        (Lang::En, Names::Kubernetes) => texts[1],
        (Lang::Ru, Names::Warehouse) => texts[2],
        (Lang::Ru, Names::Kubernetes) => texts[3],
    }
}

/// A label that reads the same in both vocabularies.
pub(crate) fn both(tr: Tr, en: &'static str, ru: &'static str) -> &'static str {
    pick(tr, [en, en, ru, ru])
}

/// The inspector's label `key`.
pub fn t(tr: Tr, key: I) -> &'static str {
    match key {
        I::Close => both(tr, "Close (Esc)", "Закрыть (Esc)"),
        I::Inspect => both(tr, "Inspect", "Подробнее"),
        I::Describe => both(tr, "Describe", "Описание"),
        I::Yaml => both(tr, "Live YAML", "YAML сейчас"),
        I::Events => both(tr, "Events", "События"),
        I::Why => both(tr, "Why?", "Почему?"),
        I::WhyZone => pick(
            tr,
            [
                "Why this zone?",
                "Scheduling",
                "Почему эта зона?",
                "Планирование",
            ],
        ),
        I::Role => both(tr, "Role", "Роль"),
        I::RawTrace => both(tr, "The trace as `sim why` prints it", "Запись, как её печатает `sim why`"),
        I::WhyHint => pick(
            tr,
            [
                "Every change in the ledger remembers who made it and what they were reacting to. Oldest first:",
                "Each write in the trace records its actor and its cause. Oldest first:",
                "Каждая запись в журнале помнит, кто её сделал и на что он отвечал. Сначала самые ранние:",
                "Каждая запись в трассировке хранит исполнителя и причину. Сначала самые ранние:",
            ],
        ),
        I::YamlHint => both(
            tr,
            "Refreshed whenever the ledger changes (revision {rev}).",
            "Обновляется при каждом изменении журнала (ревизия {rev}).",
        ),
        I::DeleteRobot => pick(tr, ["Delete robot", "Delete pod", "Удалить робота", "Удалить под"]),
        I::DeleteDesk => pick(
            tr,
            [
                "Remove order desk",
                "Delete service",
                "Убрать стойку заказов",
                "Удалить сервис",
            ],
        ),
        I::Cordon => pick(
            tr,
            [
                "Close to new robots (cordon)",
                "Cordon",
                "Не пускать новых роботов (cordon)",
                "Cordon",
            ],
        ),
        I::Uncordon => pick(
            tr,
            [
                "Open to new robots (uncordon)",
                "Uncordon",
                "Снова пускать роботов (uncordon)",
                "Uncordon",
            ],
        ),
        I::Cordoned => pick(
            tr,
            [
                "closed to new robots",
                "SchedulingDisabled",
                "закрыта для новых роботов",
                "SchedulingDisabled",
            ],
        ),
        I::RobotsHere => pick(tr, ["Robots here", "Pods", "Роботы в зоне", "Поды"]),
        I::NoRobots => pick(tr, ["no robots", "no pods", "роботов нет", "подов нет"]),
        I::Sheets => pick(
            tr,
            [
                "Sheets (EndpointSlices)",
                "EndpointSlices",
                "Листы (EndpointSlices)",
                "EndpointSlices",
            ],
        ),
        I::ShowZone => pick(tr, ["Its zone", "Its node", "Его зона", "Его узел"]),
        I::KindRobot => pick(tr, ["Robot", "Pod", "Робот", "Под"]),
        I::KindZone => pick(tr, ["Zone", "Node", "Зона", "Узел"]),
        I::KindDesk => pick(
            tr,
            ["Order desk", "Service", "Стойка заказов", "Сервис"],
        ),
        I::KindSheet => pick(tr, ["Sheet", "EndpointSlice", "Лист", "EndpointSlice"]),
        I::KindSchedule => pick(tr, ["Schedule", "CronJob", "Расписание", "CronJob"]),
        I::KindGauge => pick(
            tr,
            [
                "Load gauge",
                "HorizontalPodAutoscaler",
                "Датчик загрузки",
                "HorizontalPodAutoscaler",
            ],
        ),
        I::KindLocker => pick(
            tr,
            [
                "Locker",
                "PersistentVolume",
                "Шкафчик",
                "PersistentVolume (том)",
            ],
        ),
        I::LockerUsers => pick(
            tr,
            [
                "Robots using it",
                "Pods mounting its claim",
                "Роботы, которые им пользуются",
                "Поды, монтирующие его заявку",
            ],
        ),
        I::KindBudget => pick(
            tr,
            [
                "Staffing minimum",
                "PodDisruptionBudget",
                "Минимум смены",
                "PodDisruptionBudget",
            ],
        ),
        I::KindFence => pick(
            tr,
            ["Fence", "NetworkPolicy", "Ограждение", "NetworkPolicy"],
        ),
        I::KindGate => pick(
            tr,
            ["Sorting gate", "Gateway", "Сортировочные ворота", "Gateway"],
        ),
        I::KindStaff => pick(
            tr,
            [
                "Office staff",
                "Control-plane component",
                "Персонал конторы",
                "Компонент плоскости управления",
            ],
        ),
        I::Down => pick(
            tr,
            [
                "down: its zone is powered off",
                "down: its node is powered off",
                "не работает: его зона отключена",
                "не работает: его узел отключён",
            ],
        ),
        I::StaffPod => pick(
            tr,
            [
                "Its robot on the office zone (static pod)",
                "Its static pod",
                "Его робот в зоне конторы (статический под)",
                "Его статический под",
            ],
        ),
    }
}

/// What a control-plane component does, in a sentence or two.
pub fn role(tr: Tr, c: ControlPlaneComponent) -> &'static str {
    match c {
        ControlPlaneComponent::ApiServer => pick(
            tr,
            [
                "The reception desk (kube-apiserver) takes every request — yours, the staff's, the zone supervisors' — checks the badge (authentication), the permission (authorization) and the policies (admission), and only then writes it to the ledger vault. Nobody else touches the vault. Stop it and nothing can change; robots already working keep working.",
                "kube-apiserver serves the Kubernetes API: every read and write, from kubectl, controllers and kubelets, passes authentication, authorization and admission, and only it talks to etcd. While it is down nothing changes; running pods keep running.",
                "Стойка регистрации (kube-apiserver) принимает каждый запрос — ваш, персонала, супервайзеров зон, — проверяет пропуск (аутентификация), права (авторизация) и правила (admission) и только потом записывает его в хранилище журнала. Больше никто к хранилищу не прикасается. Остановите её — и ничего не сможет измениться; работающие роботы продолжат работать.",
                "kube-apiserver обслуживает API Kubernetes: каждое чтение и запись от kubectl, контроллеров и kubelet проходит аутентификацию, авторизацию и admission, и только он обращается к etcd. Пока он остановлен, ничего не меняется; запущенные поды продолжают работать.",
            ],
        ),
        ControlPlaneComponent::Etcd => pick(
            tr,
            [
                "The ledger vault (etcd) keeps the one true record of the warehouse: every object, its revision, and the log everyone watches for changes. Only the reception desk writes to it. Without it the desk can answer nothing.",
                "etcd is the cluster's key-value store: every object with its resourceVersion, and the watch log. Only kube-apiserver talks to it; without it the API cannot serve.",
                "Хранилище журнала (etcd) хранит единственную настоящую запись о складе: каждый объект, его ревизию и журнал, за изменениями в котором все следят. Писать в него может только стойка регистрации. Без него стойка ничего не ответит.",
                "etcd — хранилище ключ-значение кластера: все объекты с их resourceVersion и журнал watch. К нему обращается только kube-apiserver; без него API не работает.",
            ],
        ),
        ControlPlaneComponent::Scheduler => pick(
            tr,
            [
                "The zone dispatcher (kube-scheduler) watches for robots without a zone, rules out zones that cannot take them (restriction signs, no room, closed), scores the rest and writes its choice back through the reception desk. Stop it and new robots wait in the bay.",
                "kube-scheduler watches for pods without spec.nodeName, filters nodes (taints, resources, cordon), scores the feasible ones and binds the pod through the API. While it is stopped new pods stay Pending.",
                "Диспетчер зон (kube-scheduler) ищет роботов без зоны, отсеивает зоны, которые не могут их принять (знаки ограничений, нет места, закрыто), оценивает остальные и записывает выбор через стойку регистрации. Остановите его — и новые роботы будут ждать на площадке.",
                "kube-scheduler следит за подами без spec.nodeName, отсеивает узлы (taints, ресурсы, cordon), оценивает подходящие и привязывает под через API. Пока он остановлен, новые поды остаются в Pending.",
            ],
        ),
        ControlPlaneComponent::ControllerManager => pick(
            tr,
            [
                "The floor manager (kube-controller-manager) and its clerks compare what is wanted with what is there and put it right: the Deployment clerk makes robot sets, the ReplicaSet clerk makes robots, the zone clerk marks silent zones not ready and evicts their robots, the sheet clerk writes the desks' sheets. Stop it and nothing is replaced.",
                "kube-controller-manager runs the controllers (Deployment, ReplicaSet, node lifecycle, EndpointSlice, garbage collector, ...): each watches objects and writes what is needed to make the actual state match the desired one. While it is stopped nothing is replaced or cleaned up.",
                "Начальник смены (kube-controller-manager) и его учётчики сравнивают желаемое с тем, что есть, и исправляют разницу: учётчик Deployment создаёт наборы роботов, учётчик ReplicaSet — роботов, учётчик зон помечает замолчавшие зоны неготовыми и выселяет их роботов, учётчик листов пишет листы стоек. Остановите его — и никого не заменят.",
                "kube-controller-manager запускает контроллеры (Deployment, ReplicaSet, жизненный цикл узлов, EndpointSlice, сборщик мусора, ...): каждый следит за объектами и делает записи, чтобы фактическое состояние совпало с желаемым. Пока он остановлен, ничего не заменяется и не убирается.",
            ],
        ),
    }
}

/// Who made a change, from the trace's actor (`system:kube-scheduler`,
/// `system:node:zone-a`, `system:serviceaccount:kube-system:replicaset-controller`,
/// `kubernetes-admin`).
pub fn actor(tr: Tr, actor: &str) -> String {
    let ru = tr.lang == Lang::Ru;
    let k8s = tr.names == Names::Kubernetes;
    if let Some(node) = actor.strip_prefix("system:node:") {
        return match (ru, k8s) {
            (false, false) => format!("the zone supervisor of {node}"),
            (false, true) => format!("the kubelet on {node}"),
            (true, false) => format!("супервайзер зоны {node}"),
            (true, true) => format!("kubelet на {node}"),
        };
    }
    if let Some(sa) = actor.strip_prefix("system:serviceaccount:kube-system:") {
        if let (true, false, Some(clerk)) = (ru, k8s, crate::i18n::clerk(Lang::Ru, sa)) {
            return clerk.to_string();
        }
        if let Some(controller) = sa.strip_suffix("-controller") {
            return match (ru, k8s) {
                (false, false) => format!("the floor manager's {controller} clerk"),
                (false, true) => format!("the {controller} controller"),
                (true, false) => format!("учётчик {controller}"),
                (true, true) => format!("контроллер {controller}"),
            };
        }
    }
    let fixed = match actor {
        "system:kube-scheduler" => Some(pick(
            tr,
            [
                "the zone dispatcher",
                "kube-scheduler",
                "диспетчер зон",
                "kube-scheduler",
            ],
        )),
        "system:kube-controller-manager" => Some(pick(
            tr,
            [
                "the floor manager",
                "kube-controller-manager",
                "начальник смены",
                "kube-controller-manager",
            ],
        )),
        "kubernetes-admin" => Some(both(tr, "you (kubernetes-admin)", "вы (kubernetes-admin)")),
        _ => None,
    };
    fixed.map_or_else(|| actor.to_string(), str::to_string)
}

/// `ADDED` / `MODIFIED` / `DELETED` between the actor and the object: a verb in
/// English (`… created pod/x`), a noun after a colon in Russian (`…: создание
/// pod/x`), which needs no gender for a component.
pub fn verb(tr: Tr, event: &str) -> &'static str {
    match event {
        "ADDED" => both(tr, " created ", ": создание "),
        "DELETED" => both(tr, " deleted ", ": удаление "),
        _ => both(tr, " changed ", ": изменение "),
    }
}

/// The cause part of a trace line, made readable; `revision` numbers stay.
pub fn cause(tr: Tr, how: &str) -> String {
    let ru = tr.lang == Lang::Ru;
    if how == "on request" {
        return both(tr, "on request", "по запросу").to_string();
    }
    if how == "at bootstrap" {
        return both(tr, "when the warehouse was set up", "при запуске склада").to_string();
    }
    if let Some(rev) = how.strip_prefix("reacting to revision ") {
        return if ru {
            format!("в ответ на изменение {rev}")
        } else {
            format!("reacting to change {rev}")
        };
    }
    if let Some(rest) = how.strip_prefix("when timer \"") {
        // `a" after "b" after 3 earlier timers fired (set ...)`: newest first.
        if let Some((chain, origin)) = rest.split_once(" fired") {
            let (names, earlier) = match chain.rsplit_once("\" after ") {
                Some((names, tail))
                    if tail.ends_with("earlier timer") || tail.ends_with("earlier timers") =>
                {
                    (names, tail.split_whitespace().next())
                }
                _ => (chain.trim_end_matches('"'), None),
            };
            let mut timers = names.split("\" after \"");
            let timer = timers.next().unwrap_or_default();
            let before: Vec<&str> = timers.collect();
            let origin = origin.trim().trim_start_matches('(').trim_end_matches(')');
            let origin = origin
                .replace(
                    "set when reacting to revision ",
                    if ru {
                        "заведён после изменения "
                    } else {
                        "set after change "
                    },
                )
                .replace(
                    "set on request",
                    if ru {
                        "заведён по запросу"
                    } else {
                        "set on request"
                    },
                )
                .replace(
                    "set at bootstrap",
                    if ru {
                        "заведён при запуске"
                    } else {
                        "set at setup"
                    },
                );
            let mut after = String::new();
            for b in &before {
                after.push_str(&if ru {
                    format!(" после «{b}»")
                } else {
                    format!(" after “{b}”")
                });
            }
            if let Some(n) = earlier {
                after.push_str(&if ru {
                    format!(" и ещё {n} более ранних")
                } else {
                    format!(" and {n} earlier")
                });
            }
            return if ru {
                format!("когда сработал таймер «{timer}»{after} ({origin})")
            } else {
                format!("when the timer “{timer}” went off{after} ({origin})")
            };
        }
    }
    if let Some(fault) = how.strip_prefix("after fault: ") {
        return if ru {
            format!("после сбоя: {fault}")
        } else {
            format!("after a fault: {fault}")
        };
    }
    how.to_string()
}

/// The state of a staff member: stopped and at work read as on the staff list
/// (`Tr::t`, one table for both); down is the inspector's own.
pub fn staff_state(tr: Tr, running: bool, stopped: bool) -> &'static str {
    if stopped {
        tr.t(Key::ComponentStopped)
    } else if running {
        tr.t(Key::ComponentRunning)
    } else {
        t(tr, I::Down)
    }
}

/// A locker's state in a few words (its PersistentVolume's phase).
pub fn locker_phase(tr: Tr, v: &VolumeView) -> &'static str {
    if v.terminating {
        return both(
            tr,
            "being removed: it waits until no claim holds it",
            "разбирается: ждёт, пока его не отпустит заявка",
        );
    }
    match v.phase.as_str() {
        "Bound" => both(tr, "in use by its claim", "занят своей заявкой"),
        "Available" => both(tr, "free, waiting for a claim", "свободен, ждёт заявку"),
        "Released" => both(
            tr,
            "its claim is gone; the things are still inside, but no new claim gets it",
            "заявки больше нет; вещи ещё внутри, но новой заявке он не достанется",
        ),
        "Failed" => both(
            tr,
            "failed: emptying it after its claim did not work",
            "сбой: после заявки его не удалось освободить",
        ),
        _ => both(tr, "still being set up", "ещё собирается"),
    }
}

/// What a locker (PersistentVolume) is, line by line for someone who has never met
/// one: label and value, the Kubernetes field in brackets.
pub fn locker_lines(tr: Tr, v: &VolumeView, zone: Option<&str>) -> Vec<(&'static str, String)> {
    let k8s = tr.names == Names::Kubernetes;
    let ru = tr.lang == Lang::Ru;
    let mut lines = Vec::new();
    let claim = match &v.claim {
        Some(c) => format!(
            "{c} — {}",
            both(
                tr,
                "the locker claim it was set aside for",
                "заявка на шкафчик, за которой он закреплён",
            )
        ),
        None => both(
            tr,
            "none — any fitting locker claim may take it",
            "нет — его может получить любая подходящая заявка",
        )
        .to_string(),
    };
    lines.push((
        pick(
            tr,
            ["Claim", "Claim (claimRef)", "Заявка", "Заявка (claimRef)"],
        ),
        claim,
    ));
    lines.push((
        pick(tr, ["Size", "Capacity", "Объём", "Объём (capacity)"]),
        if v.capacity.is_empty() {
            "—".into()
        } else {
            v.capacity.clone()
        },
    ));
    let modes = v
        .access_modes
        .iter()
        .map(|m| {
            let said = match (m.as_str(), ru) {
                ("ReadWriteOnce", false) => "robots of one zone at a time, to read and write",
                ("ReadWriteOnce", true) => "роботы одной зоны за раз, чтение и запись",
                ("ReadOnlyMany", false) => "robots of many zones at once, to read only",
                ("ReadOnlyMany", true) => "роботы многих зон сразу, только чтение",
                ("ReadWriteMany", false) => "robots of many zones at once, to read and write",
                ("ReadWriteMany", true) => "роботы многих зон сразу, чтение и запись",
                ("ReadWriteOncePod", false) => "one robot only, to read and write",
                ("ReadWriteOncePod", true) => "только один робот, чтение и запись",
                _ => "",
            };
            if said.is_empty() || k8s {
                m.clone()
            } else {
                format!("{m} — {said}")
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    lines.push((
        pick(
            tr,
            [
                "Who may open it",
                "Access modes",
                "Кто может открыть",
                "Режимы доступа (accessModes)",
            ],
        ),
        if modes.is_empty() {
            "—".into()
        } else {
            modes
        },
    ));
    lines.push((
        pick(
            tr,
            [
                "Kind of locker",
                "StorageClass",
                "Тип шкафчика",
                "Класс хранения (storageClassName)",
            ],
        ),
        if v.class.is_empty() {
            both(tr, "none given", "не указан").to_string()
        } else {
            v.class.clone()
        },
    ));
    let policy = match (v.reclaim_policy.as_str(), ru) {
        ("Delete", false) => "the locker is taken apart, with everything in it",
        ("Delete", true) => "шкафчик разберут вместе со всем, что в нём лежит",
        ("Retain", false) => "the locker stays, things and all, until someone removes it by hand",
        ("Retain", true) => "шкафчик останется вместе с вещами, пока его не уберут вручную",
        ("Recycle", false) => "it is emptied and offered to the next claim",
        ("Recycle", true) => "его очистят и отдадут следующей заявке",
        _ => "",
    };
    lines.push((
        pick(
            tr,
            [
                "When its claim is deleted",
                "Reclaim policy",
                "Когда заявку удалят",
                "Политика возврата (persistentVolumeReclaimPolicy)",
            ],
        ),
        if policy.is_empty() || k8s {
            v.reclaim_policy.clone()
        } else {
            format!("{} — {policy}", v.reclaim_policy)
        },
    ));
    lines.push((
        pick(tr, ["Status", "Status", "Состояние", "Состояние (phase)"]),
        if k8s {
            v.phase.clone()
        } else {
            format!("{} — {}", v.phase, locker_phase(tr, v))
        },
    ));
    if let Some(zone) = zone {
        lines.push((
            pick(
                tr,
                [
                    "Stands in zone",
                    "Node affinity",
                    "Стоит в зоне",
                    "Привязка к узлу (nodeAffinity)",
                ],
            ),
            if k8s {
                format!("kubernetes.io/hostname In [{zone}]")
            } else {
                format!(
                    "{zone} — {}",
                    both(
                        tr,
                        "a locker does not move: robots that use it work in this zone",
                        "шкафчик не переезжает: роботы, которым он нужен, работают в этой зоне",
                    )
                )
            },
        ));
    }
    lines.push((
        pick(
            tr,
            [
                "Files inside",
                "Files in its directory",
                "Файлов внутри",
                "Файлов в его каталоге",
            ],
        ),
        v.files.to_string(),
    ));
    lines
}

/// A sentence on what a locker is for, above its card.
pub fn locker_intro(tr: Tr) -> &'static str {
    pick(
        tr,
        [
            "A locker keeps a robot's things after the robot is gone: the next robot that comes with the same locker claim finds them inside.",
            "A PersistentVolume is storage that outlives pods: a pod that mounts the same PersistentVolumeClaim finds its data again.",
            "Шкафчик хранит вещи робота и после того, как робота не стало: следующий робот с той же заявкой на шкафчик найдёт их внутри.",
            "PersistentVolume — хранилище, которое переживает поды: под с той же PersistentVolumeClaim снова найдёт свои данные.",
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Names;

    #[test]
    fn russian_actors_are_named_by_the_glossary_and_need_no_gender() {
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        assert_eq!(
            actor(
                ru,
                "system:serviceaccount:kube-system:node-lifecycle-controller"
            ),
            "учётчик зон"
        );
        assert_eq!(actor(ru, "system:node:zone-a"), "супервайзер зоны zone-a");
        assert_eq!(verb(ru, "MODIFIED"), ": изменение ");
        for e in ["ADDED", "MODIFIED", "DELETED"] {
            assert!(!verb(ru, e).contains("(а)"));
        }
    }

    #[test]
    fn a_chain_of_timers_reads_as_one_sentence() {
        let en = Tr::new(Lang::En, Names::Warehouse);
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        let one = r#"when timer "containers started" fired (set when reacting to revision 263)"#;
        assert_eq!(
            cause(en, one),
            "when the timer “containers started” went off (set after change 263)"
        );
        let chain = r#"when timer "probe period" after "containers started" after 3 earlier timers fired (set on request)"#;
        assert_eq!(
            cause(en, chain),
            "when the timer “probe period” went off after “containers started” and 3 earlier (set on request)"
        );
        assert_eq!(
            cause(ru, chain),
            "когда сработал таймер «probe period» после «containers started» и ещё 3 более ранних (заведён по запросу)"
        );
        let two = r#"when timer "back-off" after "exited" fired (set at bootstrap)"#;
        assert_eq!(
            cause(en, two),
            "when the timer “back-off” went off after “exited” (set at setup)"
        );
    }

    #[test]
    fn a_locker_reads_in_plain_words_in_both_languages() {
        let v = VolumeView {
            name: "pvc-1".into(),
            claim: Some("default/data-web-2".into()),
            capacity: "1Gi".into(),
            access_modes: vec!["ReadWriteOnce".into()],
            class: "standard".into(),
            reclaim_policy: "Delete".into(),
            phase: "Released".into(),
            terminating: false,
            files: 2,
        };
        let text = |tr: Tr| {
            locker_lines(tr, &v, Some("zone-b"))
                .into_iter()
                .map(|(label, value)| format!("{label}: {value}"))
                .collect::<Vec<_>>()
        };
        let en = text(Tr::new(Lang::En, Names::Warehouse));
        assert_eq!(
            en[0],
            "Claim: default/data-web-2 — the locker claim it was set aside for"
        );
        assert_eq!(
            en[2],
            "Who may open it: ReadWriteOnce — robots of one zone at a time, to read and write"
        );
        assert!(
            en[5].starts_with("Status: Released — its claim is gone"),
            "{}",
            en[5]
        );
        let ru = text(Tr::new(Lang::Ru, Names::Warehouse));
        assert_eq!(ru[1], "Объём: 1Gi");
        assert!(ru[4].contains("шкафчик разберут"), "{}", ru[4]);
        let k8s = text(Tr::new(Lang::En, Names::Kubernetes));
        assert_eq!(k8s[6], "Node affinity: kubernetes.io/hostname In [zone-b]");
    }
}
