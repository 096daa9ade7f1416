//! API errors, shaped like `metav1.Status` so kubectl can print them as the real
//! kubectl does: `Error from server (NotFound): pods "x" not found`.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusReason {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    AlreadyExists,
    Conflict,
    Invalid,
    Gone,
    ServiceUnavailable,
    InternalError,
    /// 413: a request body over the apiserver's limit
    /// ([`crate::apiserver::MAX_REQUEST_BODY_BYTES`]).
    RequestEntityTooLarge,
    /// 429: the request would go past a limit for now; a client retries later (an
    /// eviction a PodDisruptionBudget does not allow yet).
    TooManyRequests,
    /// No reason given (`metav1.StatusReasonUnknown`, the empty string): what the
    /// apiserver sends for an error it cannot classify, such as etcd timing out.
    /// kubectl then prints `Error from server: <message>`.
    Unknown,
}

impl StatusReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StatusReason::BadRequest => "BadRequest",
            StatusReason::Unauthorized => "Unauthorized",
            StatusReason::Forbidden => "Forbidden",
            StatusReason::NotFound => "NotFound",
            StatusReason::AlreadyExists => "AlreadyExists",
            StatusReason::Conflict => "Conflict",
            StatusReason::Invalid => "Invalid",
            StatusReason::Gone => "Gone",
            StatusReason::ServiceUnavailable => "ServiceUnavailable",
            StatusReason::InternalError => "InternalError",
            StatusReason::RequestEntityTooLarge => "RequestEntityTooLarge",
            StatusReason::TooManyRequests => "TooManyRequests",
            StatusReason::Unknown => "",
        }
    }

    pub fn code(self) -> u16 {
        match self {
            StatusReason::BadRequest => 400,
            StatusReason::Unauthorized => 401,
            StatusReason::Forbidden => 403,
            StatusReason::NotFound => 404,
            StatusReason::AlreadyExists => 409,
            StatusReason::Conflict => 409,
            StatusReason::Invalid => 422,
            StatusReason::Gone => 410,
            StatusReason::ServiceUnavailable => 503,
            StatusReason::InternalError => 500,
            StatusReason::RequestEntityTooLarge => 413,
            StatusReason::TooManyRequests => 429,
            StatusReason::Unknown => 500,
        }
    }
}

/// A failed API request: the reason and the message the apiserver sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub reason: StatusReason,
    pub message: String,
}

impl ApiError {
    pub fn new(reason: StatusReason, message: impl Into<String>) -> Self {
        ApiError {
            reason,
            message: message.into(),
        }
    }
    pub fn not_found(resource: &str, name: &str) -> Self {
        ApiError::new(
            StatusReason::NotFound,
            format!("{resource} \"{name}\" not found"),
        )
    }
    pub fn code(&self) -> u16 {
        self.reason.code()
    }
}

impl fmt::Display for ApiError {
    /// kubectl's rendering of a server error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            StatusReason::Unknown => write!(f, "Error from server: {}", self.message),
            reason => write!(
                f,
                "Error from server ({}): {}",
                reason.as_str(),
                self.message
            ),
        }
    }
}

impl std::error::Error for ApiError {}

/// A simulation command that cannot be carried out (`sim node kill nosuchnode`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SimError(pub String);
