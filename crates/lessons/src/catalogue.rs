//! `lessons/index.yaml`: the paths lessons are grouped into, in order, and the
//! lesson a newcomer starts with.

use crate::error::{yaml_error, LessonError};
use serde::Deserialize;

/// Text in both languages.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Texts {
    pub en: String,
    pub ru: String,
}

impl Texts {
    pub fn get(&self, russian: bool) -> &str {
        if russian {
            &self.ru
        } else {
            &self.en
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LessonPath {
    pub id: String,
    pub title: Texts,
    pub summary: Texts,
    /// Lesson folders, in order.
    pub lessons: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    /// The folder of the lesson a newcomer starts with.
    pub start: String,
    pub paths: Vec<LessonPath>,
}

impl Catalogue {
    /// Every lesson folder, in path order.
    pub fn folders(&self) -> impl Iterator<Item = &str> {
        self.paths
            .iter()
            .flat_map(|p| p.lessons.iter().map(String::as_str))
    }
}

/// Parses `index.yaml`; `file` names it in errors.
pub fn parse_catalogue(file: &str, text: &str) -> Result<Catalogue, LessonError> {
    crate::error::yaml_bounds(file, 1, 0, "index", text)?;
    let c: Catalogue =
        serde_yaml::from_str(text).map_err(|e| yaml_error(file, 1, 0, "index", &e))?;
    let folders: Vec<&str> = c.folders().collect();
    for (i, f) in folders.iter().enumerate() {
        if !valid_folder(f) {
            return Err(LessonError::new(
                file,
                1,
                0,
                format!("lesson folder {f:?}: use NN-name, lowercase letters, digits and '-'"),
            ));
        }
        if folders[..i].contains(f) {
            return Err(LessonError::new(
                file,
                1,
                0,
                format!("lesson folder {f} is listed twice"),
            ));
        }
    }
    if !folders.contains(&c.start.as_str()) {
        return Err(LessonError::new(
            file,
            1,
            0,
            format!("start: {} is not a lesson of any path", c.start),
        ));
    }
    Ok(c)
}

/// `NN-name`: what a lesson folder is called (and all the web fetches by).
pub fn valid_folder(f: &str) -> bool {
    f.len() <= 80
        && f.chars().take(2).all(|c| c.is_ascii_digit())
        && f.chars().nth(2) == Some('-')
        && f.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
