//! Every label the UI shows, in English and Russian, in warehouse words and in
//! Kubernetes words. The code speaks Kubernetes; only this table speaks warehouse.

use warehouse_sim::RobotState;

/// The interface language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    #[default]
    En,
    Ru,
}

impl Lang {
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Ru,
            Lang::Ru => Lang::En,
        }
    }

    /// The BCP 47 tag for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }
}

/// Which vocabulary the labels use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Names {
    /// Zones, robots, reception desk, ...
    #[default]
    Warehouse,
    /// Nodes, pods, kube-apiserver, ...
    Kubernetes,
}

impl Names {
    pub fn other(self) -> Names {
        match self {
            Names::Warehouse => Names::Kubernetes,
            Names::Kubernetes => Names::Warehouse,
        }
    }
}

/// Declares [`Key`] and [`Tr::t`] from one table: every key has its label by
/// construction. `both(EN, RU)` is a label the same under warehouse and Kubernetes
/// names; `pick([EN warehouse, EN Kubernetes, RU warehouse, RU Kubernetes])` one
/// that differs.
macro_rules! labels {
    ($($key:ident => $how:ident($($text:expr),+ $(,)?),)+) => {
        /// A label that does not depend on a number or a name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Key {
            $($key,)+
        }

        impl Tr {
            /// The label `key` in this language and naming.
            pub fn t(self, key: Key) -> &'static str {
                match key {
                    $(Key::$key => self.$how($($text),+),)+
                }
            }
        }
    };
}

labels! {
    Title => both("Kube Warehouse", "Kube-склад"),
    Play => both("Play", "Пуск"),
    Pause => both("Pause", "Пауза"),
    Speed => both("Speed", "Скорость"),
    Clock => both("Time", "Время"),
    ClockTitle => both(
        "Simulated time since the warehouse opened (minutes:seconds)",
        "Время симуляции с открытия склада (минуты:секунды)",
    ),
    AdvanceTitle => both(
        "Jump simulated time forward at once",
        "Сразу перемотать время симуляции вперёд",
    ),
    Step => both("Step", "Шаг"),
    StepTitle => both(
        "Run the clock to the next thing that happens (a request, a write or an \
         order) and pause there",
        "Запустить часы до следующего события (запроса, записи или заказа) и \
         остановиться на нём",
    ),
    History => both("History", "История"),
    Share => both("Share", "Поделиться"),
    ShareTitle => both(
        "A link that opens this warehouse at this moment in another browser",
        "Ссылка, которая откроет этот склад в этот момент в другом браузере",
    ),
    ShareLink => both("Link to this moment:", "Ссылка на этот момент:"),
    HistoryTitle => both(
        "Drag back to see the warehouse as it was at that moment. Play replays what \
         happened next; a new command or action starts a new history from there.",
        "Перетащите назад, чтобы увидеть склад таким, каким он был в тот момент. \
         «Пуск» воспроизводит то, что было дальше; новая команда или действие \
         начинает с этого места новую историю.",
    ),
    TimingNote => pick([
        "Timings follow real Kubernetes: a zone that stops reporting is marked \
         not ready after about 50 s, and its robots are evicted 300 s later. \
         Fast-forward with +1m and +5m.",
        "Timings follow real Kubernetes: a node without heartbeats is marked \
         NotReady after about 50 s, and its pods are evicted 300 s later. \
         Fast-forward with +1m and +5m.",
        "Задержки как в настоящем Kubernetes: зону, которая перестала выходить \
         на связь, помечают неготовой примерно через 50 с, а её роботов выселяют \
         ещё через 300 с. Перематывайте время кнопками +1 мин и +5 мин.",
        "Задержки как в настоящем Kubernetes: узел без heartbeat-сигналов \
         получает статус NotReady примерно через 50 с, а его поды вытесняются \
         ещё через 300 с. Перематывайте время кнопками +1 мин и +5 мин.",
    ]),
    LangToggle => both("Русский", "English"),
    LangToggleTitle => both("Переключить на русский", "Switch to English"),
    NamesToggle => pick([
        "Show Kubernetes names",
        "Show warehouse names",
        "Показать названия Kubernetes",
        "Показать складские названия",
    ]),
    ZonesHeading => pick(["Zones", "Nodes", "Зоны", "Узлы"]),
    KillZone => pick(["Kill zone", "Kill node", "Отключить зону", "Отключить узел"]),
    RestartZone => pick([
        "Restart zone",
        "Restart node",
        "Включить зону",
        "Включить узел",
    ]),
    Ready => pick(["ready", "Ready", "готова", "Ready (готов)"]),
    NotReady => pick(["not ready", "NotReady", "не готова", "NotReady (не готов)"]),
    PoweredOff => pick(["powered off", "powered off", "отключена", "отключён"]),
    ControlPlaneZone => pick([
        "office zone (control plane)",
        "control-plane node",
        "зона конторы (control plane)",
        "управляющий узел",
    ]),
    ControlPlaneStrip => pick([
        "Warehouse office",
        "Control plane",
        "Контора склада",
        "Плоскость управления",
    ]),
    WaitingBay => pick([
        "Waiting bay: robots without a zone yet",
        "Pending pods: not yet scheduled to a node",
        "Площадка ожидания: роботы, которым ещё не дали зону",
        "Поды в ожидании: ещё не назначены на узел",
    ]),
    Apiserver => pick([
        "Reception desk",
        "kube-apiserver",
        "Стойка регистрации",
        "kube-apiserver",
    ]),
    Etcd => pick(["Ledger vault", "etcd", "Хранилище журнала (etcd)", "etcd"]),
    Scheduler => pick([
        "Zone dispatcher",
        "kube-scheduler",
        "Диспетчер зон",
        "kube-scheduler",
    ]),
    ControllerManager => pick([
        "Floor manager",
        "kube-controller-manager",
        "Начальник смены",
        "kube-controller-manager",
    ]),
    ComponentsHeading => pick([
        "Warehouse office staff",
        "Control-plane components",
        "Персонал конторы",
        "Компоненты плоскости управления",
    ]),
    DecisionHeading => pick([
        "Why this zone? The dispatcher's decision",
        "Scheduling decision (kube-scheduler)",
        "Почему эта зона? Решение диспетчера",
        "Решение планировщика (kube-scheduler)",
    ]),
    DecisionPick => pick([
        "Pick a robot the dispatcher placed recently to see how each zone was judged: \
         the checks that ruled zones out, then the scores of the rest.",
        "Pick a recently scheduled pod to see each node's filter verdict and plugin \
         scores.",
        "Выберите робота, которого диспетчер недавно разместил: какие проверки \
         отсеяли зоны и сколько баллов получили остальные.",
        "Выберите недавно запланированный под: вердикт фильтров и баллы плагинов для \
         каждого узла.",
    ]),
    DecisionNone => pick([
        "The dispatcher has not judged this robot (it was placed before, or by hand).",
        "No scheduling attempt recorded for this pod.",
        "Диспетчер ещё не оценивал этого робота.",
        "Для этого пода нет записи о планировании.",
    ]),
    DecisionZone => pick(["Zone", "Node", "Зона", "Узел"]),
    DecisionTotal => both("Total", "Итого"),
    RequestsHeading => pick([
        "Reception desk log",
        "API server requests",
        "Журнал стойки регистрации",
        "Запросы к API-серверу",
    ]),
    RequestsHint => pick([
        "Every change passes reception's checks in order: who are you, may you, \
         fill in defaults, is it valid, policy checks, then the ledger vault. \
         Times are a model of a small healthy cluster; the simulation itself \
         answers at once.",
        "Each write passes authentication, authorization, mutating admission, \
         validation, validating admission, then etcd. Latencies are a model of a \
         small healthy cluster; the simulated apiserver answers at once.",
        "Каждое изменение проходит проверки стойки по порядку: кто вы, можно ли \
         вам, заполнение значений по умолчанию, правильность, правила, затем \
         хранилище журнала (etcd). Время — модель небольшого исправного кластера; \
         сама симуляция отвечает сразу.",
        "Каждая запись проходит аутентификацию, авторизацию, изменяющий контроль \
         допуска, валидацию, проверяющий контроль допуска, затем etcd. Задержки — \
         модель небольшого исправного кластера; симулированный API-сервер \
         отвечает сразу.",
    ]),
    ComponentRunning => pick(["at work", "running", "на месте", "работает"]),
    ComponentStopped => pick(["stopped", "stopped", "остановлен", "остановлен"]),
    StopComponent => both("Stop", "Остановить"),
    StartComponent => both("Start", "Запустить"),
    SystemRobots => pick([
        "Warehouse staff robots (kube-system)",
        "System pods (kube-system)",
        "Служебные роботы склада (kube-system)",
        "Системные поды (kube-system)",
    ]),
    LegendHeading => pick(["Robots", "Pods", "Роботы", "Поды"]),
    EditorHeading => both("Manifest (YAML)", "Манифест (YAML)"),
    Apply => both("Apply", "Применить"),
    SaveEdit => both("Save edit", "Сохранить правку"),
    CancelEdit => both("Cancel edit", "Отменить правку"),
    TerminalHeading => both("kubectl", "kubectl"),
    TerminalHint => both(
        "Enter runs the command, Tab completes it, ↑/↓ walk the history, Esc leaves the box, “clear” empties the screen. “sim why pod/NAME” explains how an object came to be.",
        "Enter — выполнить, Tab — дополнить, ↑/↓ — история команд, Esc — выйти из поля ввода, «clear» очищает экран. «sim why pod/ИМЯ» объясняет, откуда взялся объект.",
    ),
    TerminalPlaceholder => both("get pods -o wide", "get pods -o wide"),
    CanvasLabel => pick([
        "The warehouse floor: zones and their robots",
        "The cluster: nodes and their pods",
        "Склад: зоны и их роботы",
        "Кластер: узлы и их поды",
    ]),
    Dismiss => both("Dismiss", "Закрыть"),
    FloorText => pick([
        "The floor as text",
        "The cluster as text",
        "Склад в виде текста",
        "Кластер в виде текста",
    ]),
    FloorTextBay => pick([
        "Waiting bay",
        "Pending pods",
        "Площадка ожидания",
        "Поды в ожидании",
    ]),
    FloorTextNoDesks => pick([
        "No order desks yet.",
        "No Services yet.",
        "Стоек приёма заказов пока нет.",
        "Сервисов пока нет.",
    ]),
    ZoomIn => both("Zoom in", "Приблизить"),
    ZoomOut => both("Zoom out", "Отдалить"),
    SkipLinks => both("Skip links", "Быстрые переходы"),
    SkipToTerminal => both("Skip to the terminal", "Перейти к терминалу"),
    SkipToLesson => both("Skip to the lesson", "Перейти к уроку"),
    SkipToLessons => both("Skip to the lessons", "Перейти к урокам"),
    Steps => both("Steps", "Шаги"),
    Done => both("done", "пройден"),
}

/// A label table for one language and one vocabulary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tr {
    pub lang: Lang,
    pub names: Names,
}

impl Tr {
    pub fn new(lang: Lang, names: Names) -> Tr {
        Tr { lang, names }
    }

    /// Picks from `[english warehouse, english kubernetes, russian warehouse, russian
    /// kubernetes]`.
    fn pick(self, texts: [&'static str; 4]) -> &'static str {
        match (self.lang, self.names) {
            (Lang::En, Names::Warehouse) => texts[0],
            (Lang::En, Names::Kubernetes) => texts[1],
            (Lang::Ru, Names::Warehouse) => texts[2],
            (Lang::Ru, Names::Kubernetes) => texts[3],
        }
    }

    /// A label that reads the same in both vocabularies.
    fn both(self, en: &'static str, ru: &'static str) -> &'static str {
        self.pick([en, en, ru, ru])
    }

    /// The user a request log row names: the desk's own word for a request whose
    /// pass it did not recognise, translated; a user's name as it is.
    pub fn user(self, user: &str) -> &str {
        if user == warehouse_sim::apiserver::request::UNAUTHENTICATED {
            self.pick([
                "(unknown pass)",
                "(unauthenticated)",
                "(пропуск не опознан)",
                "(не аутентифицирован)",
            ])
        } else {
            user
        }
    }

    /// A request pipeline stage's name (`Stage::as_str` in, label out).
    pub fn stage(self, stage: &str) -> &'static str {
        match stage {
            "authentication" => self.pick([
                "who are you? (authentication)",
                "authentication",
                "кто вы? (аутентификация)",
                "аутентификация",
            ]),
            "authorization" => self.pick([
                "may you? (authorization)",
                "authorization",
                "можно ли вам? (авторизация)",
                "авторизация",
            ]),
            "mutating admission" => self.pick([
                "defaults filled in (mutating admission)",
                "mutating admission",
                "заполнение по умолчанию (изменяющий контроль допуска)",
                "изменяющий контроль допуска",
            ]),
            "validation" => self.pick([
                "is it valid? (validation)",
                "validation",
                "всё ли верно? (валидация)",
                "валидация",
            ]),
            "validating admission" => self.pick([
                "policy checks (validating admission)",
                "validating admission",
                "правила склада (проверяющий контроль допуска)",
                "проверяющий контроль допуска",
            ]),
            _ => self.pick([
                "written to the ledger vault (etcd)",
                "etcd",
                "запись в хранилище журнала (etcd)",
                "etcd",
            ]),
        }
    }

    /// How a robot state is named in the legend.
    pub fn state(self, state: RobotState) -> &'static str {
        match state {
            RobotState::Unscheduled => self.pick([
                "Waiting for a zone",
                "Pending (unscheduled)",
                "Ждёт зону",
                "Pending (не назначен)",
            ]),
            RobotState::Creating => self.pick([
                "Starting up",
                "ContainerCreating",
                "Запускается",
                "ContainerCreating (создаётся)",
            ]),
            RobotState::Running => {
                self.pick(["Working", "Running", "Работает", "Running (работает)"])
            }
            RobotState::NotReady => self.pick([
                "Not ready",
                "Running, not Ready",
                "Не готов",
                "Running, не Ready",
            ]),
            RobotState::Terminating => self.pick([
                "Shutting down",
                "Terminating",
                "Завершает работу",
                "Terminating (завершается)",
            ]),
            RobotState::BackOff | RobotState::Failed => self.pick([
                "Broken or retrying",
                "Failed / BackOff",
                "Сломан или ждёт повтора",
                "Failed / BackOff (сбой)",
            ]),
            RobotState::Completed => self.pick([
                "Task done",
                "Completed",
                "Задача выполнена",
                "Completed (завершён)",
            ]),
        }
    }

    /// "3 robots", "1 pod", "5 роботов", "2 пода".
    pub fn robot_count(self, n: usize) -> String {
        let word = match (self.lang, self.names) {
            (Lang::En, Names::Warehouse) => {
                if n == 1 {
                    "robot"
                } else {
                    "robots"
                }
            }
            (Lang::En, Names::Kubernetes) => {
                if n == 1 {
                    "pod"
                } else {
                    "pods"
                }
            }
            (Lang::Ru, Names::Warehouse) => ru_plural(n, "робот", "робота", "роботов"),
            (Lang::Ru, Names::Kubernetes) => ru_plural(n, "под", "пода", "подов"),
        };
        format!("{n} {word}")
    }

    /// The accessible name of a button that acts on one named thing: the button's
    /// label and the thing's name (`Kill zone zone-a`, `Stop Reception desk`,
    /// `Остановить: Стойка регистрации`). A zone's name follows its label as
    /// it is (`Отключить зону zone-a`); any other name after a colon in Russian,
    /// where it keeps its own case.
    pub fn acting_on(self, label: &str, name: &str) -> String {
        match self.lang {
            Lang::Ru if !label.ends_with(" зону") && !label.ends_with(" узел") => {
                format!("{label}: {name}")
            }
            _ => format!("{label} {name}"),
        }
    }

    /// What a single step found, for the line under the toolbar: how far the clock
    /// went and who did what there.
    pub fn stepped(self, stepped: &crate::kubectl::journal::Stepped) -> String {
        use warehouse_sim::views::feed::{Change, FeedEvent};
        let ru = self.lang == Lang::Ru;
        let ms = stepped.by.as_millis();
        let by = match (ms, ru) {
            (0, false) => "at the same moment".to_string(),
            (0, true) => "в тот же момент".to_string(),
            (1..=999, false) => format!("+{ms} ms"),
            (1..=999, true) => format!("+{ms} мс"),
            (_, false) => format!(
                "+{} s",
                crate::numbers::one_decimal(self.lang, ms as f64 / 1000.0)
            ),
            (_, true) => format!(
                "+{} с",
                crate::numbers::one_decimal(self.lang, ms as f64 / 1000.0)
            ),
        };
        let step = if ru { "Шаг" } else { "Step" };
        let who = |actor: &str| crate::inspector_i18n::actor(self, actor);
        let what = match &stepped.first {
            None if ru => return "Шаг: за 5 минут ничего не произошло".into(),
            None => return "Step: nothing happened in the next 5 minutes".into(),
            Some(FeedEvent::Request {
                user,
                verb,
                target,
                code,
                ..
            }) => format!("{} → {verb} {target} ({code})", who(user)),
            Some(FeedEvent::Write {
                actor,
                kind,
                name,
                change,
                ..
            }) => {
                let change = match (change, ru) {
                    (Change::Added, false) => "created",
                    (Change::Modified, false) => "changed",
                    (Change::Deleted, false) => "deleted",
                    (Change::Added, true) => "создание",
                    (Change::Modified, true) => "изменение",
                    (Change::Deleted, true) => "удаление",
                };
                format!("{} → {kind} {name} ({change})", who(actor))
            }
            Some(FeedEvent::Order {
                source,
                pod,
                failure,
                ..
            }) => match (pod, failure, ru) {
                (_, Some(f), false) => format!("an order from {source} failed ({f})"),
                (_, Some(f), true) => format!("заказ от {source} не выполнен ({f})"),
                (Some(p), None, false) => format!("an order from {source}, served by {p}"),
                (Some(p), None, true) => format!("заказ от {source}, выполнил {p}"),
                (None, None, false) => format!("an order from {source}"),
                (None, None, true) => format!("заказ от {source}"),
            },
        };
        format!("{step} {by}: {what}")
    }

    /// The label of an advance button, from its length in milliseconds.
    pub fn advance(self, ms: u64) -> String {
        let secs = ms / 1000;
        let (minutes, rest) = (secs / 60, secs % 60);
        match (self.lang, minutes > 0 && rest == 0) {
            (Lang::En, true) => format!("+{minutes}m"),
            (Lang::En, false) => format!("+{secs}s"),
            (Lang::Ru, true) => format!("+{minutes} мин"),
            (Lang::Ru, false) => format!("+{secs} с"),
        }
    }
}

/// Picks the Russian plural form for `n` (see [`crate::numbers::ru_plural`]).
pub fn ru_plural(
    n: usize,
    one: &'static str,
    few: &'static str,
    many: &'static str,
) -> &'static str {
    crate::numbers::ru_plural(n as u64, one, few, many)
}

/// Simulated time as `mm:ss`; minutes keep counting past an hour (`75:00`).
pub fn clock(time_ms: u64) -> String {
    let secs = time_ms / 1000;
    format!("{:02}:{:02}", secs / 60, secs % 60)
}

/// What the panic banner says (`panic_banner.rs`): built with plain DOM calls after
/// an internal error, so it takes its language from `<html lang>`, not the app.
pub struct PanicTexts {
    pub title: &'static str,
    pub body: &'static str,
    pub reload: &'static str,
    pub details: &'static str,
    /// Over the share link of the state before the error.
    pub share: &'static str,
    pub open_link: &'static str,
    /// The accessible name of the link's text field.
    pub link_label: &'static str,
}

pub fn panic_texts(lang: Lang) -> PanicTexts {
    match lang {
        Lang::En => PanicTexts {
            title: "The simulator stopped because of an internal error",
            body: "This is a fault in Kube Warehouse, not in anything you did. \
                   Reload the page to start again: your lesson progress is kept, \
                   the warehouse starts anew.",
            reload: "Reload",
            details: "Error details (copy them into a bug report)",
            share: "To show someone what happened, send them this link with the \
                    details: it opens the warehouse as it was a few seconds before \
                    the error.",
            open_link: "Open that moment in a new tab",
            link_label: "Link to the warehouse before the error",
        },
        Lang::Ru => PanicTexts {
            title: "Симулятор остановился из-за внутренней ошибки",
            body: "Это ошибка в самом Kube Warehouse, а не в ваших действиях. \
                   Перезагрузите страницу, чтобы начать заново: прогресс уроков \
                   сохранён, склад начнёт работу с чистого листа.",
            reload: "Перезагрузить",
            details: "Подробности ошибки (скопируйте их в сообщение об ошибке)",
            share: "Чтобы показать кому-то, что произошло, отправьте эту ссылку \
                    вместе с подробностями: она откроет склад таким, каким он был \
                    за несколько секунд до ошибки.",
            open_link: "Открыть этот момент в новой вкладке",
            link_label: "Ссылка на склад до ошибки",
        },
    }
}

/// The notice after a share link opened.
pub fn link_opened(lang: Lang, now_ms: u64) -> String {
    match lang {
        Lang::En => format!(
            "Opened the shared warehouse at {}, paused. Press Play to go on, or drag History back.",
            clock(now_ms)
        ),
        Lang::Ru => format!(
            "Открыт присланный склад на моменте {}, время остановлено. Нажмите «Пуск», чтобы продолжить, или перетащите «Историю» назад.",
            clock(now_ms)
        ),
    }
}

/// The notice after a reload brought the sandbox back.
pub fn sandbox_restored(lang: Lang, now_ms: u64) -> String {
    match lang {
        Lang::En => format!(
            "Your sandbox is back as you left it, paused at {}. Press Play to go on.",
            clock(now_ms)
        ),
        Lang::Ru => format!(
            "Ваша песочница вернулась такой, какой вы её оставили; время остановлено на {}. Нажмите «Пуск», чтобы продолжить.",
            clock(now_ms)
        ),
    }
}

/// The notice when a share link could not be opened.
pub fn link_refused(lang: Lang, why: &str) -> String {
    match lang {
        Lang::En => format!("This link could not be opened: {why}. The sandbox is as it was."),
        Lang::Ru => format!("Не удалось открыть ссылку: {why}. Песочница осталась прежней."),
    }
}

/// The notice when the saved sandbox could not be brought back.
pub fn saved_refused(lang: Lang, why: &str) -> String {
    match lang {
        Lang::En => format!("The sandbox saved in this browser could not be restored ({why}), so a fresh one was opened."),
        Lang::Ru => format!("Сохранённую в браузере песочницу не удалось восстановить ({why}), поэтому открыта новая."),
    }
}

/// What the terminal says when `kubectl edit` opens an object in the editor.
pub fn edit_opened(lang: Lang) -> String {
    match lang {
        Lang::En => "Opened in the manifest editor: change it and press “Save edit” (kubectl saves it as the edit).\n".into(),
        Lang::Ru => "Открыто в редакторе манифеста: измените и нажмите «Сохранить правку» (kubectl сохранит её как правку).\n".into(),
    }
}

/// Labels of the lessons: the catalogue and the lesson panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L {
    LessonsButton,
    CatalogueHeading,
    CatalogueIntro,
    CatalogueLoading,
    CatalogueFailed,
    StartHere,
    Open,
    Continue,
    Sandbox,
    SandboxHint,
    BackToCatalogue,
    Minutes,
    Run,
    Copy,
    OpenInEditor,
    CheckHeading,
    CheckPassed,
    CheckWaiting,
    Expected,
    Actual,
    Nothing,
    Hint,
    NextHint,
    ShowSolution,
    HideSolution,
    RunSolution,
    QuizCheck,
    Correct,
    Wrong,
    PredictCommit,
    PredictRight,
    PredictWrong,
    Previous,
    Next,
    Finish,
    Reset,
    ResetTitle,
    StepDone,
    AuthorHeading,
    AuthorPick,
    AuthorDrop,
    LessonErrors,
    Loading,
    ProgressReset,
    Dismiss,
    ClusterNote,
    LessonDone,
}

impl Tr {
    /// A lesson label; the warehouse words are used in both vocabularies.
    pub fn l(self, key: L) -> &'static str {
        match key {
            L::LessonsButton => self.both("Lessons", "Уроки"),
            L::CatalogueHeading => self.both("Lessons", "Уроки"),
            L::CatalogueIntro => self.both(
                "Short hands-on lessons on this warehouse. Each step checks your work as you go.",
                "Короткие практические уроки на этом складе. Каждый шаг сам проверяет вашу работу.",
            ),
            L::CatalogueLoading => self.both("Loading the lessons…", "Загружаем уроки…"),
            L::CatalogueFailed => self.both("The lessons could not be loaded:", "Не удалось загрузить уроки:"),
            L::StartHere => self.both("Start here", "Начать отсюда"),
            L::Open => self.both("Open", "Открыть"),
            L::Continue => self.both("Continue", "Продолжить"),
            L::Sandbox => self.both("Just the sandbox", "Просто песочница"),
            L::SandboxHint => self.both(
                "No lesson: the warehouse is yours to try anything.",
                "Без урока: склад в вашем распоряжении, пробуйте что угодно.",
            ),
            L::BackToCatalogue => self.both("← All lessons", "← Все уроки"),
            L::Minutes => self.both("min", "мин"),
            L::Run => self.both("▶ Run", "▶ Выполнить"),
            L::Copy => self.both("Copy", "Копировать"),
            L::OpenInEditor => self.both("Open in editor", "Открыть в редакторе"),
            L::CheckHeading => self.both("Check", "Проверка"),
            L::CheckPassed => self.both("Done: every condition holds.", "Готово: все условия выполнены."),
            L::CheckWaiting => self.both(
                "Not yet — the check runs again whenever the warehouse changes.",
                "Пока нет — проверка повторяется при каждом изменении на складе.",
            ),
            L::Expected => self.both("expected", "ожидается"),
            L::Actual => self.both("the warehouse shows", "склад показывает"),
            L::Nothing => self.both("(nothing)", "(ничего)"),
            L::Hint => self.both("Hint", "Подсказка"),
            L::NextHint => self.both("Show a hint", "Показать подсказку"),
            L::ShowSolution => self.both("Show solution", "Показать решение"),
            L::HideSolution => self.both("Hide solution", "Скрыть решение"),
            L::RunSolution => self.both("Run solution", "Выполнить решение"),
            L::QuizCheck => self.both("Check answer", "Проверить ответ"),
            L::Correct => self.both("Right.", "Верно."),
            L::Wrong => self.both("Not quite.", "Не совсем."),
            L::PredictCommit => self.both("Commit and let time run", "Зафиксировать и запустить время"),
            L::PredictRight => self.both("Your prediction was right.", "Ваш прогноз оказался верным."),
            L::PredictWrong => self.both("Your prediction was not what happened.", "Вышло не так, как вы предсказали."),
            L::Previous => self.both("← Previous", "← Назад"),
            L::Next => self.both("Next →", "Дальше →"),
            L::Finish => self.both("Finish ✓", "Завершить ✓"),
            L::Reset => self.both("Reset this step", "Сбросить шаг"),
            L::ResetTitle => self.both(
                "Put the warehouse back as it was when this step opened",
                "Вернуть склад в состояние на момент открытия шага",
            ),
            L::StepDone => self.both("✓ done", "✓ выполнен"),
            L::AuthorHeading => self.both("Author mode", "Режим автора"),
            L::AuthorPick => self.both(
                "Open a lesson from files (en.md, ru.md and its manifests):",
                "Открыть урок из файлов (en.md, ru.md и его манифесты):",
            ),
            L::AuthorDrop => self.both(
                "…or drop the files onto this panel.",
                "…или перетащите файлы на эту панель.",
            ),
            L::LessonErrors => self.both("This lesson cannot be opened:", "Этот урок не открывается:"),
            L::Loading => self.both("Loading", "Загружаем"),
            L::ProgressReset => self.both(
                "Saved progress could not be read and was reset",
                "Сохранённый прогресс не удалось прочитать, он сброшен",
            ),
            L::Dismiss => self.both("OK", "Понятно"),
            L::ClusterNote => self.both(
                "Progress is saved in this browser; the warehouse itself is not. Reopening a lesson replays the earlier steps' solutions.",
                "Прогресс хранится в этом браузере, а сам склад — нет. При повторном открытии урока решения прошлых шагов выполняются заново.",
            ),
            L::LessonDone => self.both("Lesson complete!", "Урок пройден!"),
        }
    }

    pub fn level(self, level: warehouse_lessons::Level) -> &'static str {
        use warehouse_lessons::Level;
        match level {
            Level::Beginner => self.both("beginner", "начальный"),
            Level::Intermediate => self.both("intermediate", "средний"),
            Level::Advanced => self.both("advanced", "продвинутый"),
        }
    }

    /// `Step 2 of 3`.
    pub fn step_of(self, i: usize, n: usize) -> String {
        match self.lang {
            Lang::En => format!("Step {i} of {n}"),
            Lang::Ru => format!("Шаг {i} из {n}"),
        }
    }

    /// `2/3 steps`.
    pub fn steps_done(self, done: usize, n: usize) -> String {
        match self.lang {
            Lang::En => format!("{done}/{n} steps"),
            Lang::Ru => format!("{done}/{n} {}", ru_plural(n, "шаг", "шага", "шагов")),
        }
    }
}

/// The terminal's mark for a line a lesson ran by itself.
pub fn incident_label(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "⚡ incident",
        Lang::Ru => "⚡ происшествие",
    }
}

pub fn lesson_started(lang: Lang, title: &str) -> String {
    match lang {
        Lang::En => format!("lesson “{title}”: a new warehouse for it"),
        Lang::Ru => format!("урок «{title}»: для него новый склад"),
    }
}

pub fn replayed(lang: Lang, steps: usize) -> String {
    match (lang, steps) {
        (Lang::En, 1) => "Welcome back. The warehouse is not saved, so the solution of step 1 was replayed to bring it here.".into(),
        (Lang::En, _) => format!(
            "Welcome back. The warehouse is not saved, so the solutions of steps 1–{steps} were replayed to bring it here."
        ),
        (Lang::Ru, 1) => "С возвращением. Склад не сохраняется, поэтому решение первого шага выполнено заново, чтобы вернуть склад в нужное состояние.".into(),
        (Lang::Ru, _) => format!(
            "С возвращением. Склад не сохраняется, поэтому решения шагов 1–{steps} выполнены заново, чтобы вернуть склад в нужное состояние."
        ),
    }
}

/// A controller's warehouse name (`replicaset-controller` → `ReplicaSet clerk`,
/// `учётчик ReplicaSet`), from the feed's or the service account's name. Object kinds
/// stay as Kubernetes spells them (as in English); ordinary words are translated
/// (lessons/glossary.yaml: a node is a zone, a Job a task, EndpointSlices sheets).
pub fn clerk(lang: Lang, controller: &str) -> Option<&'static str> {
    let (en, ru) = match controller {
        "deployment-controller" => ("Deployment clerk", "учётчик Deployment"),
        "replicaset-controller" => ("ReplicaSet clerk", "учётчик ReplicaSet"),
        "daemonset-controller" => ("DaemonSet clerk", "учётчик DaemonSet"),
        "job-controller" => ("task clerk", "учётчик заданий"),
        "node-lifecycle-controller" | "node-controller" => ("zone clerk", "учётчик зон"),
        "taint-eviction-controller" => ("eviction clerk", "учётчик выселения"),
        "endpointslice-controller" => ("sheet clerk", "учётчик листов"),
        "endpoint-controller" | "endpoints-controller" => ("scroll clerk", "учётчик свитка"),
        "garbage-collector" | "generic-garbage-collector" => ("cleanup clerk", "учётчик уборки"),
        "pod-garbage-collector" => ("robot write-off clerk", "учётчик списания"),
        "namespace-controller" => ("department clerk", "учётчик отделов"),
        "service-account-controller" => ("badge clerk", "учётчик пропусков"),
        "resourcequota-controller" | "resource-quota-controller" => ("quota clerk", "учётчик квот"),
        "ttl-after-finished-controller" => ("clean-up timer clerk", "учётчик сроков"),
        "disruption-controller" => ("staffing clerk", "учётчик минимумов"),
        "statefulset-controller" => ("crew clerk", "учётчик бригад"),
        "persistentvolume-binder-controller" => ("locker clerk", "учётчик шкафчиков"),
        "local-path-provisioner" => ("locker builder", "сборщик шкафчиков"),
        "horizontal-pod-autoscaler" => ("gauge clerk", "учётчик загрузки"),
        "cronjob-controller" => ("schedule clerk", "учётчик расписаний"),
        "cloud-provider-kind" => ("gate builder", "строитель ворот"),
        _ => return None,
    };
    Some(match lang {
        Lang::En => en,
        Lang::Ru => ru,
    })
}

pub fn step_reset(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "step reset: the warehouse is as it was when the step opened",
        Lang::Ru => "шаг сброшен: склад такой же, как при открытии шага",
    }
}

/// The floor's labels: order desks, sheets, the master scroll, the copying machines,
/// the tooltips and the zoom controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F {
    Desks,
    Desk,
    BadgeRule,
    NoBadgeRule,
    Sheet,
    Sheets,
    Lines,
    ScrollToggle,
    ScrollToggleTitle,
    Scroll,
    SystemDesks,
    Copiers,
    CopiersSent,
    CopiersScroll,
    CopiersNone,
    CopiersLast,
    CopiersReset,
    Estimate,
    Ready,
    NotReady,
    Terminating,
    Restarts,
    RestartIn,
    PullIn,
    ZoomIn,
    ZoomOut,
    ZoomReset,
    ZoomTitle,
    ScaleDemo,
    ScaleDemoTitle,
    More,
    Zone,
    Robot,
    Locker,
    LegendLocker,
    LegendAttachment,
    /// "claim" before a locker claim's name.
    Claim,
    /// "ready" after a count of lines (Russian: the plural).
    ReadyMany,
    NotReadyMany,
    LegendLines,
    LegendChanged,
}

/// A staffing minimum's line on the floor: how many robots work, the promise, and
/// how many may leave now (`kubectl get pdb`'s ALLOWED DISRUPTIONS).
pub fn budget_line(tr: Tr, b: &warehouse_sim::views::board::BudgetView) -> String {
    let name = if b.namespace == "default" {
        b.name.clone()
    } else {
        format!("{}/{}", b.namespace, b.name)
    };
    let wh = tr.names == Names::Warehouse;
    let promise = match (&b.min_available, &b.max_unavailable, tr.lang) {
        (Some(m), _, Lang::En) if wh => format!("at least {m} working"),
        (Some(m), _, Lang::En) => format!("minAvailable {m}"),
        (Some(m), _, Lang::Ru) if wh => format!("не меньше {m} за работой"),
        (Some(m), _, Lang::Ru) => format!("minAvailable {m}"),
        (None, Some(m), Lang::En) if wh => format!("at most {m} away"),
        (None, Some(m), Lang::Ru) if wh => format!("не больше {m} в отлучке"),
        (None, Some(m), _) => format!("maxUnavailable {m}"),
        (None, None, _) => String::new(),
    };
    let (healthy, allowed) = (b.current_healthy, b.disruptions_allowed);
    match (tr.lang, wh) {
        (Lang::En, true) => format!(
            "Staffing minimum {name} ({promise}): {healthy} of {} ready, {allowed} may leave",
            b.expected_pods
        ),
        (Lang::En, false) => format!(
            "PodDisruptionBudget {name} ({promise}): {healthy} healthy, {} desired, {allowed} disruptions allowed",
            b.desired_healthy
        ),
        (Lang::Ru, true) => format!(
            "Минимум смены {name} ({promise}): готовы {healthy} из {}, отпустить можно {allowed}",
            b.expected_pods
        ),
        (Lang::Ru, false) => format!(
            "PodDisruptionBudget {name} ({promise}): готовы {healthy}, нужно {}, разрешено прерываний: {allowed}",
            b.desired_healthy
        ),
    }
}

/// A fence's line on the floor: the robots it stands around and its gates each way
/// (`kubectl describe networkpolicy`'s summary).
pub fn fence_line(tr: Tr, f: &warehouse_sim::views::board::FenceView) -> String {
    let name = if f.namespace == "default" {
        f.name.clone()
    } else {
        format!("{}/{}", f.namespace, f.name)
    };
    let wh = tr.names == Names::Warehouse;
    let ru = tr.lang == Lang::Ru;
    let around = match (f.selector.is_empty(), ru, wh) {
        (true, false, true) => "every robot".to_string(),
        (true, false, false) => "all pods".to_string(),
        (true, true, true) => "все роботы".to_string(),
        (true, true, false) => "все поды".to_string(),
        (false, _, _) => f.selector.clone(),
    };
    let way = |rules: Option<usize>, en_in: bool| -> Option<String> {
        let n = rules?;
        Some(match (ru, wh, en_in, n) {
            (false, true, true, 0) => "nothing gets in".into(),
            (false, true, false, 0) => "nothing goes out".into(),
            (false, true, true, n) => format!("in through {n} gate(s)"),
            (false, true, false, n) => format!("out through {n} gate(s)"),
            (false, false, true, 0) => "ingress isolated".into(),
            (false, false, false, 0) => "egress isolated".into(),
            (false, false, true, n) => format!("{n} ingress rule(s)"),
            (false, false, false, n) => format!("{n} egress rule(s)"),
            (true, true, true, 0) => "внутрь никого".into(),
            (true, true, false, 0) => "наружу ничего".into(),
            (true, true, true, n) => format!("калиток внутрь: {n}"),
            (true, true, false, n) => format!("калиток наружу: {n}"),
            (true, false, true, 0) => "входящий трафик изолирован".into(),
            (true, false, false, 0) => "исходящий трафик изолирован".into(),
            (true, false, true, n) => format!("правил ingress: {n}"),
            (true, false, false, n) => format!("правил egress: {n}"),
        })
    };
    let ways: Vec<String> = [way(f.ingress, true), way(f.egress, false)]
        .into_iter()
        .flatten()
        .collect();
    let title = match (ru, wh) {
        (false, true) => "Fence",
        (true, true) => "Ограждение",
        _ => "NetworkPolicy",
    };
    format!("{title} {name} ({around}): {}", ways.join(", "))
}

/// A sorting gate's (Gateway's) line on the floor: its address and how many route
/// cards (HTTPRoutes) its listeners took, or that its controller has not
/// programmed it yet.
pub fn gate_line(tr: Tr, g: &warehouse_sim::views::board::GateView) -> String {
    let name = if g.namespace == "default" {
        g.name.clone()
    } else {
        format!("{}/{}", g.namespace, g.name)
    };
    let wh = tr.names == Names::Warehouse;
    let ru = tr.lang == Lang::Ru;
    let title = match (ru, wh) {
        (false, true) => "Sorting gate",
        (true, true) => "Сортировочные ворота",
        _ => "Gateway",
    };
    let address = g.address.as_deref().unwrap_or("-");
    let state = match (g.programmed, ru, wh) {
        (true, false, true) => format!("{} route card(s)", g.routes),
        (true, false, false) => format!("{} attached route(s)", g.routes),
        (true, true, true) => format!("маршрутных карт: {}", g.routes),
        (true, true, false) => format!("маршрутов: {}", g.routes),
        (false, false, _) => format!("not programmed (class {})", g.class),
        (false, true, true) => format!("не запрограммированы (класс {})", g.class),
        (false, true, false) => format!("не запрограммирован (класс {})", g.class),
    };
    format!("{title} {name} {address}: {state}")
}

/// A schedule's line on the floor: its cron expression, when it last made a task
/// and makes the next (simulated UTC clock time), and how many run now.
pub fn schedule_line(tr: Tr, s: &warehouse_sim::views::board::ScheduleView) -> String {
    let name = if s.namespace == "default" {
        s.name.clone()
    } else {
        format!("{}/{}", s.namespace, s.name)
    };
    let clock = |ms: Option<u64>| match ms {
        Some(ms) => {
            let minutes = ms / 60_000;
            format!("{:02}:{:02}", (minutes / 60) % 24, minutes % 60)
        }
        None => "—".into(),
    };
    let (last, next, active) = (clock(s.last_ms), clock(s.next_ms), s.active);
    // The schedule, with its time zone when it names one; the times are UTC.
    let when = match &s.time_zone {
        Some(zone) => format!("{}, {zone}", s.schedule),
        None => s.schedule.clone(),
    };
    let wh = tr.names == Names::Warehouse;
    match (tr.lang, wh, s.suspended) {
        (Lang::En, true, false) => format!(
            "Schedule {name} ({when}): last task {last}, next {next} UTC, {active} running"
        ),
        (Lang::En, true, true) => format!("Schedule {name} ({when}): paused"),
        (Lang::En, false, false) => format!(
            "CronJob {name} ({when}): last schedule {last}, next {next} UTC, {active} active"
        ),
        (Lang::En, false, true) => format!("CronJob {name} ({when}): suspended"),
        (Lang::Ru, true, false) => format!(
            "Расписание {name} ({when}): последнее задание {last}, следующее {next} UTC, выполняется {active}"
        ),
        (Lang::Ru, true, true) => format!("Расписание {name} ({when}): на паузе"),
        (Lang::Ru, false, false) => format!(
            "CronJob {name} ({when}): последний запуск {last}, следующий {next} UTC, активных {active}"
        ),
        (Lang::Ru, false, true) => format!("CronJob {name} ({when}): приостановлен"),
    }
}

/// A load gauge's line on the floor: the robots' CPU as last measured against its
/// aim, how many robots it asks for, and its bounds (`kubectl get hpa`'s TARGETS,
/// MINPODS, MAXPODS and the desired replicas).
pub fn gauge_line(tr: Tr, g: &warehouse_sim::views::board::GaugeView) -> String {
    let name = if g.namespace == "default" {
        g.name.clone()
    } else {
        format!("{}/{}", g.namespace, g.name)
    };
    let wh = tr.names == Names::Warehouse;
    let aim = g
        .target_utilization
        .map_or_else(|| "—".to_string(), |t| format!("{t}%"));
    // How many robots it asks for, once its clerk has looked at it.
    let robots = g
        .desired_replicas
        .map(|n| format!(" → {}", tr.robot_count(usize::try_from(n).unwrap_or(0))))
        .unwrap_or_default();
    let (min, max) = (g.min_replicas, g.max_replicas);
    // The robots it counts, when they are not named after it.
    let of = (g.target_name != g.name).then_some(g.target_name.as_str());
    match (tr.lang, wh) {
        (Lang::En, true) => {
            let cpu = g
                .utilization
                .map_or_else(|| "unknown".to_string(), |u| format!("{u}%"));
            let of = of.map(|t| format!(" for {t}")).unwrap_or_default();
            format!("Load gauge {name}{of}: cpu {cpu} of {aim}{robots} ({min}–{max})")
        }
        (Lang::En, false) => {
            let cpu = g
                .utilization
                .map_or_else(|| "<unknown>".to_string(), |u| format!("{u}%"));
            format!(
                "HorizontalPodAutoscaler {name} ({}/{}): cpu {cpu}/{aim}{robots} (min {min}, max {max})",
                g.target_kind.to_lowercase(),
                g.target_name
            )
        }
        (Lang::Ru, true) => {
            let cpu = g.utilization.map_or_else(
                || "процессор ещё не измерен".to_string(),
                |u| format!("процессор {u}%"),
            );
            let of = of.map(|t| format!(" для {t}")).unwrap_or_default();
            format!("Датчик загрузки {name}{of}: {cpu}, цель {aim}{robots} ({min}–{max})")
        }
        (Lang::Ru, false) => {
            let cpu = g
                .utilization
                .map_or_else(|| "<unknown>".to_string(), |u| format!("{u}%"));
            format!(
                "HorizontalPodAutoscaler {name} ({}/{}): cpu {cpu}/{aim}{robots} (мин. {min}, макс. {max})",
                g.target_kind.to_lowercase(),
                g.target_name
            )
        }
    }
}

impl Tr {
    /// A count and what it counts: `5 lines`; in Russian with the plural form the
    /// number asks for (`1 строка`, `3 строки`, `5 строк`; `3 готовы`).
    pub fn count(self, n: usize, key: F) -> String {
        let n64 = n as u64;
        match self.lang {
            Lang::En => format!("{} {}", crate::numbers::int(Lang::En, n64), self.f(key)),
            Lang::Ru => {
                let wh = self.names == Names::Warehouse;
                let (one, few, many) = match key {
                    F::Lines if wh => ("строка", "строки", "строк"),
                    F::Lines => ("эндпоинт", "эндпоинта", "эндпоинтов"),
                    // Agreeing with строка (feminine) or эндпоинт.
                    F::ReadyMany if wh => ("готова", "готовы", "готово"),
                    F::ReadyMany => ("готов", "готовы", "готово"),
                    F::NotReadyMany if wh => ("не готова", "не готовы", "не готово"),
                    F::NotReadyMany => ("не готов", "не готовы", "не готово"),
                    F::Terminating => ("завершается", "завершаются", "завершаются"),
                    F::Restarts => ("перезапуск", "перезапуска", "перезапусков"),
                    other => {
                        let w = self.f(other);
                        (w, w, w)
                    }
                };
                crate::numbers::ru_count(n64, one, few, many)
            }
        }
    }

    pub fn f(self, key: F) -> &'static str {
        match key {
            F::Desks => self.pick(["Order desks", "Services", "Стойки приёма заказов", "Сервисы"]),
            F::Desk => self.pick(["Order desk", "Service", "Стойка приёма заказов", "Service"]),
            F::BadgeRule => self.pick(["badge rule", "selector", "правило бейджей", "селектор"]),
            F::NoBadgeRule => self.pick([
                "no badge rule: sheets written by hand",
                "no selector: EndpointSlices managed by hand",
                "без правила бейджей: листы пишут вручную",
                "без селектора: EndpointSlice ведут вручную",
            ]),
            F::Sheet => self.pick(["sheet", "EndpointSlice", "лист", "EndpointSlice"]),
            F::Sheets => self.pick(["sheets", "EndpointSlices", "листы", "EndpointSlice"]),
            F::Lines => self.pick(["lines", "endpoints", "строк", "эндпоинтов"]),
            F::ScrollToggle => self.pick([
                "Master scroll",
                "Endpoints",
                "Главный свиток",
                "Endpoints",
            ]),
            F::ScrollToggleTitle => self.pick([
                "Show the legacy master scroll beside each desk's sheets",
                "Show the legacy Endpoints object beside each Service's EndpointSlices",
                "Показать старый главный свиток рядом с листами каждой стойки",
                "Показать устаревший объект Endpoints рядом с EndpointSlice каждого сервиса",
            ]),
            F::Scroll => self.pick(["master scroll", "Endpoints", "главный свиток", "Endpoints"]),
            F::SystemDesks => self.pick([
                "system desks (kubernetes, kube-dns) not drawn",
                "system Services (kubernetes, kube-dns) not drawn",
                "системные стойки (kubernetes, kube-dns) не показаны",
                "системные сервисы (kubernetes, kube-dns) не показаны",
            ]),
            F::Copiers => self.pick([
                "Copying machines → conveyor routers",
                "Watch traffic → kube-proxy",
                "Копировальные машины → маршрутизаторы конвейеров",
                "Watch-трафик → kube-proxy",
            ]),
            F::CopiersSent => self.pick([
                "routers received in all (sim stats)",
                "kube-proxy received in all (sim stats)",
                "маршрутизаторы получили всего (sim stats)",
                "kube-proxy получили всего (sim stats)",
            ]),
            F::CopiersScroll => self.pick([
                "as the master scroll",
                "as Endpoints",
                "главным свитком вышло бы",
                "через Endpoints вышло бы",
            ]),
            F::Estimate => self.both("estimate", "оценка"),
            F::CopiersLast => self.pick([
                "last sheet change",
                "last EndpointSlice change",
                "последнее изменение листа",
                "последнее изменение EndpointSlice",
            ]),
            F::CopiersReset => self.pick([
                "counters reset (sim stats reset) at",
                "counters reset (sim stats reset) at",
                "счётчики сброшены (sim stats reset) в",
                "счётчики сброшены (sim stats reset) в",
            ]),
            F::CopiersNone => self.pick([
                "no sheet has changed yet",
                "no EndpointSlice has changed yet",
                "ни один лист ещё не менялся",
                "ни один EndpointSlice ещё не менялся",
            ]),
            F::Ready => self.both("ready", "готов"),
            F::NotReady => self.both("not ready", "не готов"),
            F::Terminating => self.both("terminating", "завершается"),
            F::Restarts => self.both("restarts", "перезапусков"),
            F::RestartIn => self.both("restart in", "перезапуск через"),
            F::PullIn => self.both("next pull in", "загрузка через"),
            F::ZoomIn => "+",
            F::ZoomOut => "−",
            F::ZoomReset => self.both("Reset view", "Сбросить вид"),
            F::ZoomTitle => self.both(
                "Wheel to zoom, drag to move the floor",
                "Колесо — масштаб, перетаскивание — сдвиг",
            ),
            F::ScaleDemo => self.both("Big warehouse", "Большой склад"),
            F::ScaleDemoTitle => self.pick([
                "Add 97 zones and 10,000 robots (runs sim node add and kubectl scale in the terminal)",
                "Add 97 nodes and 10,000 pods (runs sim node add and kubectl scale in the terminal)",
                "Добавить 97 зон и 10 000 роботов (sim node add и kubectl scale в терминале)",
                "Добавить 97 узлов и 10 000 подов (sim node add и kubectl scale в терминале)",
            ]),
            F::More => self.both("more", "ещё"),
            F::Zone => self.pick(["zone", "node", "зона", "узел"]),
            F::Robot => self.pick(["robot", "pod", "робот", "под"]),
            F::Locker => self.pick([
                "locker",
                "PersistentVolume",
                "шкафчик",
                "PersistentVolume (том)",
            ]),
            F::LegendLocker => self.pick([
                "Locker (stays when its robot goes)",
                "PersistentVolume",
                "Шкафчик (остаётся, когда робота нет)",
                "PersistentVolume (том)",
            ]),
            F::LegendAttachment => self.pick([
                "Attachment (a sidecar; filled when ready)",
                "sidecar container (filled: ready)",
                "Навесной модуль (sidecar; закрашен, когда готов)",
                "sidecar-контейнер (закрашен: готов)",
            ]),
            F::Claim => self.pick([
                "locker claim",
                "claim",
                "заявка на шкафчик",
                "PersistentVolumeClaim",
            ]),
            F::ReadyMany => self.both("ready", "готовы"),
            F::LegendLines => self.pick([
                "Sheet lines",
                "Endpoints",
                "Строки листов",
                "Эндпоинты",
            ]),
            F::LegendChanged => self.both("just changed", "только что изменён"),
            F::NotReadyMany => self.both("not ready", "не готовы"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn russian_plurals_follow_the_last_digits() {
        let forms = |n| ru_plural(n, "робот", "робота", "роботов");
        assert_eq!(forms(1), "робот");
        assert_eq!(forms(3), "робота");
        assert_eq!(forms(5), "роботов");
        assert_eq!(forms(11), "роботов");
        assert_eq!(forms(12), "роботов");
        assert_eq!(forms(21), "робот");
        assert_eq!(forms(104), "робота");
        assert_eq!(forms(0), "роботов");
    }

    #[test]
    fn russian_counts_agree_with_their_number() {
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        assert_eq!(ru.count(1, F::Lines), "1\u{a0}строка");
        assert_eq!(ru.count(3, F::Lines), "3\u{a0}строки");
        assert_eq!(ru.count(5, F::Lines), "5\u{a0}строк");
        assert_eq!(ru.count(21, F::ReadyMany), "21\u{a0}готова");
        assert_eq!(ru.count(3, F::ReadyMany), "3\u{a0}готовы");
        assert_eq!(ru.count(11, F::NotReadyMany), "11\u{a0}не готово");
        let en = Tr::new(Lang::En, Names::Warehouse);
        assert_eq!(en.count(10_000, F::Lines), "10,000 lines");
        assert!(
            !replayed(Lang::Ru, 2).contains("(2)"),
            "{}",
            replayed(Lang::Ru, 2)
        );
        assert!(replayed(Lang::Ru, 2).contains("решения шагов 1–2 выполнены"));
        assert!(replayed(Lang::En, 1).contains("the solution of step 1 was"));
        assert_eq!(
            clerk(Lang::Ru, "node-lifecycle-controller"),
            Some("учётчик зон")
        );
        assert_eq!(
            clerk(Lang::Ru, "endpointslice-controller"),
            Some("учётчик листов")
        );
        assert_eq!(clerk(Lang::Ru, "job-controller"), Some("учётчик заданий"));
        assert_eq!(
            Tr::new(Lang::Ru, Names::Warehouse).t(Key::RequestsHeading),
            "Журнал стойки регистрации"
        );
        assert_eq!(
            Tr::new(Lang::Ru, Names::Warehouse).t(Key::ControllerManager),
            "Начальник смены"
        );
    }

    #[test]
    fn clock_prints_minutes_and_seconds() {
        assert_eq!(clock(0), "00:00");
        assert_eq!(clock(61_999), "01:01");
        assert_eq!(clock(75 * 60_000), "75:00");
    }

    #[test]
    fn advance_labels_use_seconds_or_minutes() {
        let en = Tr::new(Lang::En, Names::Warehouse);
        assert_eq!(en.advance(10_000), "+10s");
        assert_eq!(en.advance(300_000), "+5m");
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        assert_eq!(ru.advance(60_000), "+1 мин");
    }

    #[test]
    fn names_toggle_switches_vocabulary() {
        let wh = Tr::new(Lang::En, Names::Warehouse);
        let k8s = Tr::new(Lang::En, Names::Kubernetes);
        assert_eq!(wh.t(Key::Apiserver), "Reception desk");
        assert_eq!(k8s.t(Key::Apiserver), "kube-apiserver");
        assert_eq!(
            Tr::new(Lang::Ru, Names::Warehouse).t(Key::KillZone),
            "Отключить зону"
        );
        assert_eq!(wh.robot_count(1), "1 robot");
        assert_eq!(k8s.robot_count(2), "2 pods");
    }

    #[test]
    fn a_gauge_line_says_cpu_aim_and_robots_in_both_languages() {
        let mut g = warehouse_sim::views::board::GaugeView {
            namespace: "default".into(),
            name: "php-apache".into(),
            target_kind: "Deployment".into(),
            target_name: "php-apache".into(),
            min_replicas: 1,
            max_replicas: 10,
            current_replicas: 0,
            desired_replicas: None,
            utilization: None,
            target_utilization: Some(50),
        };
        let en = Tr::new(Lang::En, Names::Warehouse);
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        let k8s = Tr::new(Lang::En, Names::Kubernetes);
        assert_eq!(
            gauge_line(en, &g),
            "Load gauge php-apache: cpu unknown of 50% (1–10)"
        );
        g.current_replicas = 1;
        g.desired_replicas = Some(1);
        assert_eq!(
            gauge_line(en, &g),
            "Load gauge php-apache: cpu unknown of 50% → 1 robot (1–10)"
        );
        assert_eq!(
            gauge_line(ru, &g),
            "Датчик загрузки php-apache: процессор ещё не измерен, цель 50% → 1 робот (1–10)"
        );
        g.utilization = Some(200);
        g.desired_replicas = Some(4);
        assert_eq!(
            gauge_line(en, &g),
            "Load gauge php-apache: cpu 200% of 50% → 4 robots (1–10)"
        );
        assert_eq!(
            gauge_line(ru, &g),
            "Датчик загрузки php-apache: процессор 200%, цель 50% → 4 робота (1–10)"
        );
        assert_eq!(
            gauge_line(k8s, &g),
            "HorizontalPodAutoscaler php-apache (deployment/php-apache): cpu 200%/50% → 4 pods (min 1, max 10)"
        );
        g.desired_replicas = Some(5);
        g.name = "busy".into();
        assert_eq!(
            gauge_line(ru, &g),
            "Датчик загрузки busy для php-apache: процессор 200%, цель 50% → 5 роботов (1–10)"
        );
    }
}
