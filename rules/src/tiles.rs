//! Floor tiles as data: their dice restriction and the bonus of each pillar, and the
//! catalogue file users edit to match their copy of the game.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::components::{Die, DieColor, DieKinds, DieValue, PillarIndex};
use crate::format::{FormatError, check_header, parse_json};

/// What a pillar gives the player who fills it with a die.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PillarBonus {
    /// Gain 2 prestige.
    TwoPrestige,
    /// Gain prestige equal to the tower's current level (first floor = 1).
    LevelPrestige,
    /// Place one more meeple on an empty pillar of another tower, or on the spellbook space
    /// of the placed die's value.
    ExtraMeeple,
    /// Put a meeple from the reserve on the spellbook space of the placed die's value
    /// (every pillar of the central tower).
    Spell,
}

impl PillarBonus {
    /// Every pillar of the central tower (the tiles' ceiling side B) gives a spell.
    pub const CENTRAL: PillarBonus = PillarBonus::Spell;

    pub fn describe(self) -> &'static str {
        match self {
            Self::TwoPrestige => "gain 2 prestige",
            Self::LevelPrestige => "gain prestige equal to the tower's level",
            Self::ExtraMeeple => {
                "place another meeple on an empty pillar of another tower (no die, no bonus, it stays for good) or on your spellbook at the die's value"
            }
            Self::Spell => "put a meeple from your reserve on your spellbook at the die's value",
        }
    }
}

impl fmt::Display for PillarBonus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TwoPrestige => "+2 prestige",
            Self::LevelPrestige => "+level prestige",
            Self::ExtraMeeple => "extra meeple",
            Self::Spell => "spell",
        })
    }
}

/// The dice an outer floor accepts: colour in a set, value in a set, and optionally all
/// values on the floor different.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restriction {
    #[serde(default = "all_colors")]
    pub colors: BTreeSet<DieColor>,
    #[serde(default = "all_values")]
    pub values: BTreeSet<DieValue>,
    #[serde(default)]
    pub all_different: bool,
}

fn all_colors() -> BTreeSet<DieColor> {
    DieColor::ALL.into_iter().collect()
}

fn all_values() -> BTreeSet<DieValue> {
    DieValue::ALL.into_iter().collect()
}

impl Restriction {
    /// Accepts any die: the ceiling side of every tile.
    pub fn any() -> Self {
        Self {
            colors: all_colors(),
            values: all_values(),
            all_different: false,
        }
    }

    pub fn allows_color(&self, color: DieColor) -> bool {
        self.colors.contains(&color)
    }

    pub fn allows_value(&self, value: DieValue) -> bool {
        self.values.contains(&value)
    }

    /// The kinds of die the colours and values allow (the all-different rule aside).
    pub(crate) fn kinds(&self) -> DieKinds {
        DieKinds::of(self.colors.iter().copied(), self.values.iter().copied())
    }

    /// Whether `die` may join a floor that already holds `on_floor`.
    pub fn allows(&self, die: Die, on_floor: impl IntoIterator<Item = Die>) -> bool {
        self.allows_color(die.color)
            && self.allows_value(die.value)
            && !(self.all_different && on_floor.into_iter().any(|d| d.value == die.value))
    }

    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.colors.is_empty() {
            problems.push("the restriction allows no colour".to_owned());
        }
        if self.values.is_empty() {
            problems.push("the restriction allows no value".to_owned());
        }
        problems
    }
}

fn or_list<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let items: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

impl fmt::Display for Restriction {
    /// "yellow dice showing 1 or 2", "yellow dice, all values different", "any die".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let any_color = self.colors.len() == DieColor::ALL.len();
        let any_value = self.values.len() == DieValue::ALL.len();
        if any_color {
            f.write_str("dice of any colour")?;
        } else {
            write!(f, "{} dice", or_list(&self.colors))?;
        }
        if !any_value {
            write!(f, " showing {}", or_list(&self.values))?;
        }
        if self.all_different {
            f.write_str(", all values different")?;
        }
        Ok(())
    }
}

/// One floor tile: side A (an outer floor) has a restriction and three pillar bonuses;
/// side B (the central tower's ceiling) takes any die and gives a spell on every pillar.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    pub id: String,
    #[serde(default)]
    pub name: String,
    /// One of the four tiles with star-marked pillars that start the game.
    #[serde(default)]
    pub starting: bool,
    pub restriction: Restriction,
    /// The bonus of pillars 1, 2 and 3 on side A.
    #[serde(default = "standard_bonuses")]
    pub bonuses: [PillarBonus; 3],
    /// Where this tile's data comes from (rulebook page, or "placeholder").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// Every printed outer tile carries these three bonuses (RULINGS.md, Components).
fn standard_bonuses() -> [PillarBonus; 3] {
    [
        PillarBonus::TwoPrestige,
        PillarBonus::LevelPrestige,
        PillarBonus::ExtraMeeple,
    ]
}

impl Tile {
    pub fn bonus(&self, pillar: PillarIndex) -> PillarBonus {
        self.bonuses[pillar.index()]
    }

    pub(crate) fn problems(&self) -> Vec<String> {
        let mut problems = self.restriction.problems();
        if self.id.trim().is_empty() {
            problems.push("the tile has an empty id".to_owned());
        }
        if self.bonuses.contains(&PillarBonus::Spell) {
            problems.push(
                "the spell bonus belongs to the central tower's ceiling side; side A pillars give +2, +level or an extra meeple".to_owned(),
            );
        }
        problems
    }
}

/// The tile catalogue file: every tile a game can use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileCatalogue {
    pub format: String,
    pub version: u32,
    pub tiles: Vec<Arc<Tile>>,
}

/// The catalogue shipped with the game: the rulebook's examples plus placeholders.
const ARKHANOS_TILES: &str = include_str!("../data/arkhanos-tiles.json");
const CATALOGUE_FORMAT: &str = "tablesight-tiles";
const CATALOGUE_VERSION: u32 = 1;

/// A catalogue file that parsed but does not describe a usable set of tiles.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("the tile catalogue has problems:\n{}", .0.join("\n"))]
    Invalid(Vec<String>),
}

impl TileCatalogue {
    /// The catalogue that ships with Tablesight (`rules/data/arkhanos-tiles.json`).
    pub fn arkhanos() -> Self {
        // The shipped file is checked by a unit test, so a failure here is a build defect.
        #[allow(clippy::expect_used)] // reason: the embedded file is validated by a unit test
        Self::from_json(ARKHANOS_TILES).expect("the shipped tile catalogue is valid")
    }

    /// Parses and validates a catalogue, listing every problem found.
    pub fn from_json(json: &str) -> Result<Self, CatalogueError> {
        let catalogue: TileCatalogue = parse_json(json)?;
        let mut problems = Vec::new();
        check_header(
            &catalogue.format,
            catalogue.version,
            CATALOGUE_FORMAT,
            CATALOGUE_VERSION,
            &mut problems,
        );
        let mut seen = BTreeSet::new();
        for (i, tile) in catalogue.tiles.iter().enumerate() {
            for problem in tile.problems() {
                problems.push(format!("tiles[{i}] ({}): {problem}", tile.id));
            }
            if !seen.insert(tile.id.as_str()) {
                problems.push(format!("tiles[{i}]: the id \"{}\" is used twice", tile.id));
            }
        }
        let starting = catalogue.tiles.iter().filter(|t| t.starting).count();
        if starting < 4 {
            problems.push(format!(
                "tiles: a game starts with 4 star-marked tiles, the catalogue marks {starting} as \"starting\""
            ));
        }
        if problems.is_empty() {
            Ok(catalogue)
        } else {
            Err(CatalogueError::Invalid(problems))
        }
    }

    pub fn to_json(&self) -> String {
        // Serialising plain data structures to a string cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Tile>> {
        self.tiles.iter().find(|t| t.id == id)
    }

    pub fn starting_tiles(&self) -> impl Iterator<Item = &Arc<Tile>> {
        self.tiles.iter().filter(|t| t.starting)
    }

    pub fn stack_tiles(&self) -> impl Iterator<Item = &Arc<Tile>> {
        self.tiles.iter().filter(|t| !t.starting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn die(color: DieColor, value: u8) -> Die {
        Die::new(color, DieValue::new(value).unwrap())
    }

    #[test]
    fn shipped_catalogue_is_valid_and_holds_the_rulebook_examples() {
        let catalogue = TileCatalogue::from_json(ARKHANOS_TILES).unwrap();
        assert_eq!(catalogue.tiles.len(), 18);
        assert_eq!(catalogue.starting_tiles().count(), 4);
        let examples: Vec<String> = catalogue
            .tiles
            .iter()
            .filter(|t| t.source.as_deref().is_some_and(|s| s.contains("rulebook")))
            .map(|t| t.restriction.to_string())
            .collect();
        for expected in [
            "yellow dice showing 1 or 2",
            "purple dice showing 2, 4 or 6",
            "yellow dice, all values different",
            "pink or yellow dice showing 5 or 6",
            "blue dice showing 1, 3 or 5",
        ] {
            assert!(
                examples.iter().any(|e| e == expected),
                "{expected} missing from {examples:?}"
            );
        }
    }

    #[test]
    fn all_different_refuses_a_repeated_value() {
        let restriction = Restriction {
            colors: [DieColor::Yellow].into(),
            values: all_values(),
            all_different: true,
        };
        assert!(restriction.allows(die(DieColor::Yellow, 3), [die(DieColor::Yellow, 4)]));
        assert!(!restriction.allows(die(DieColor::Yellow, 3), [die(DieColor::Yellow, 3)]));
        assert!(!restriction.allows(die(DieColor::Pink, 5), []));
    }

    #[test]
    fn catalogue_problems_are_all_listed() {
        let json = r#"{"format":"tablesight-tiles","version":1,"tiles":[
            {"id":"x","restriction":{"colors":[]}},
            {"id":"x","restriction":{"values":[]},"bonuses":["spell","two_prestige","extra_meeple"]}
        ]}"#;
        let Err(CatalogueError::Invalid(problems)) = TileCatalogue::from_json(json) else {
            panic!("an invalid catalogue was accepted");
        };
        let text = problems.join("\n");
        assert!(text.contains("allows no colour"), "{text}");
        assert!(text.contains("allows no value"), "{text}");
        assert!(text.contains("used twice"), "{text}");
        assert!(text.contains("central tower's ceiling"), "{text}");
        assert!(text.contains("4 star-marked tiles"), "{text}");
    }

    #[test]
    fn a_bad_value_names_its_place_in_the_file() {
        let json = r#"{"format":"tablesight-tiles","version":1,"tiles":[
            {"id":"x","restriction":{"values":[7]}}]}"#;
        let Err(CatalogueError::Format(error)) = TileCatalogue::from_json(json) else {
            panic!("a die value of 7 was accepted");
        };
        let text = error.to_string();
        assert!(text.contains("tiles[0].restriction.values"), "{text}");
        assert!(text.contains("not 7"), "{text}");
    }

    #[test]
    fn an_unknown_key_names_its_place_in_the_file() {
        let json = r#"{"format":"tablesight-tiles","version":1,"tiles":[
            {"id":"x","restriction":{"colours":["pink"]}}]}"#;
        let Err(CatalogueError::Format(error)) = TileCatalogue::from_json(json) else {
            panic!("a misspelt key was accepted");
        };
        let text = error.to_string();
        assert!(
            text.contains("at tiles[0].restriction.colours: unknown field `colours`"),
            "{text}"
        );
    }
}
