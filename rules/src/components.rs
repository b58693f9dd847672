//! The physical pieces of the game: dice, meeples, towers, pillars and spells.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Number of dice of each colour in the box.
pub const DICE_PER_COLOR: u8 = 10;
/// Number of apprentices each player owns (plus one master).
pub const APPRENTICES_PER_PLAYER: u8 = 7;
/// Meeples each player owns, master included.
pub const MEEPLES_PER_PLAYER: u8 = APPRENTICES_PER_PLAYER + 1;

/// The colour of a translucent die.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DieColor {
    Pink,
    Purple,
    Yellow,
    Blue,
}

impl DieColor {
    pub const ALL: [DieColor; 4] = [Self::Pink, Self::Purple, Self::Yellow, Self::Blue];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Pink => "pink",
            Self::Purple => "purple",
            Self::Yellow => "yellow",
            Self::Blue => "blue",
        }
    }
}

impl fmt::Display for DieColor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The face a die shows: 1 to 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct DieValue(u8);

impl DieValue {
    pub const ALL: [DieValue; 6] = [
        DieValue(1),
        DieValue(2),
        DieValue(3),
        DieValue(4),
        DieValue(5),
        DieValue(6),
    ];

    pub fn new(value: u8) -> Option<Self> {
        (1..=6).contains(&value).then_some(Self(value))
    }

    pub fn get(self) -> u8 {
        self.0
    }

    /// The face on the other side of the die (the faces of opposite sides add up to 7).
    pub fn opposite(self) -> Self {
        Self(7 - self.0)
    }

    /// The value moved by `delta`, or `None` if it would leave 1..=6 (a die does not wrap).
    pub fn offset(self, delta: i8) -> Option<Self> {
        let moved = i16::from(self.0) + i16::from(delta);
        u8::try_from(moved).ok().and_then(Self::new)
    }
}

impl TryFrom<u8> for DieValue {
    type Error = String;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Self::new(value).ok_or_else(|| format!("a die shows 1 to 6, not {value}"))
    }
}

impl From<DieValue> for u8 {
    fn from(value: DieValue) -> u8 {
        value.0
    }
}

impl fmt::Display for DieValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One die: its colour and the value it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Die {
    pub color: DieColor,
    pub value: DieValue,
}

impl Die {
    pub fn new(color: DieColor, value: DieValue) -> Self {
        Self { color, value }
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color, self.value)
    }
}

/// How many bits are set in each byte value, for [`DieKinds::len`].
const ONES_IN_BYTE: [u8; 256] = {
    let mut ones = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        ones[byte] = (byte as u8).count_ones() as u8;
        byte += 1;
    }
    ones
};

/// The six values of one colour in a [`DieKinds`], the first colour's.
const VALUES_OF_A_COLOR: u32 = (1 << 6) - 1;

/// A set of the 24 kinds of die (4 colours times 6 values), one bit each: what a floor
/// accepts, found once and then asked of every die.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DieKinds(u32);

impl DieKinds {
    pub(crate) const NONE: Self = Self(0);
    pub(crate) const ALL: Self = Self((1 << 24) - 1);

    fn bit(color: DieColor, value: DieValue) -> u32 {
        1 << (color.index() * 6 + usize::from(value.get() - 1))
    }

    /// The dice whose colour is one of `colors` and whose value is one of `values`.
    pub(crate) fn of(
        colors: impl IntoIterator<Item = DieColor>,
        values: impl IntoIterator<Item = DieValue>,
    ) -> Self {
        let values = values
            .into_iter()
            .fold(0u32, |bits, value| bits | Self::bit(DieColor::Pink, value));
        let kinds = colors
            .into_iter()
            .fold(0u32, |kinds, color| kinds | values << (color.index() * 6));
        Self(kinds)
    }

    /// Every kind of `color`: one row of six values.
    pub(crate) fn of_color(color: DieColor) -> Self {
        Self(VALUES_OF_A_COLOR << (color.index() * 6))
    }

    /// The kinds with their value moved by `delta`, those that would leave 1 to 6 dropped
    /// (a die does not wrap), as [`DieValue::offset`] moves each die.
    pub(crate) fn offset(self, delta: i8) -> Self {
        // The same values in each of the four colours' rows.
        let in_every_row = |values: u32| values * 0b000001_000001_000001_000001;
        let steps = u32::from(delta.unsigned_abs());
        if steps >= 6 {
            return Self::NONE;
        }
        // The values that stay within 1 to 6: the lowest `6 - steps` going up, the highest
        // going down.
        let staying = VALUES_OF_A_COLOR >> steps;
        if delta >= 0 {
            Self((self.0 & in_every_row(staying)) << steps)
        } else {
            Self((self.0 & in_every_row(staying << steps)) >> steps)
        }
    }

    /// The kinds with every die counted as `color` (Metamorphosis): the values of the set,
    /// whatever their colour, in `color`'s row.
    pub(crate) fn recoloured(self, color: DieColor) -> Self {
        let values = (self.0 | self.0 >> 6 | self.0 >> 12 | self.0 >> 18) & VALUES_OF_A_COLOR;
        Self(values << (color.index() * 6))
    }

    /// Every kind of `value`: the value in each colour.
    pub(crate) fn of_value(value: DieValue) -> Self {
        Self::of_die(Die::new(DieColor::Pink, value)).spread_from(DieColor::Pink)
    }

    /// The values this set holds in `color`'s row, in every colour.
    pub(crate) fn spread_from(self, color: DieColor) -> Self {
        let values = self.0 >> (color.index() * 6) & VALUES_OF_A_COLOR;
        Self(values * 0b000001_000001_000001_000001)
    }

    /// The one kind of `die`.
    pub(crate) fn of_die(die: Die) -> Self {
        Self(Self::bit(die.color, die.value))
    }

    /// The kinds of the dice in `dice` (identical dice make one kind).
    pub(crate) fn of_dice(dice: &[Die]) -> Self {
        dice.iter()
            .fold(Self::NONE, |kinds, &die| kinds.union(Self::of_die(die)))
    }

    /// How many kinds the set holds: one bit each, counted a byte at a time in a table (the
    /// default target has no population-count instruction, and the move generator counts
    /// sets at every step).
    pub(crate) fn len(self) -> usize {
        debug_assert!(self.0 < 1 << 24, "{:#x}", self.0);
        let [low, middle, high, _] = self.0.to_le_bytes();
        let ones = |byte: u8| ONES_IN_BYTE[usize::from(byte)];
        usize::from(ones(low) + ones(middle) + ones(high))
    }

    pub(crate) fn intersection(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    pub(crate) fn contains(self, die: Die) -> bool {
        self.0 & Self::bit(die.color, die.value) != 0
    }

    /// Whether the two sets share a kind.
    pub(crate) fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    pub(crate) fn without(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    pub(crate) fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

/// A set of spells, one bit each by [`SpellId::index`]: the spaces of a spellbook that hold
/// a meeple, or the spells a player can cast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SpellSet(u8);

impl SpellSet {
    pub(crate) const NONE: Self = Self(0);

    /// The bit of `spell`.
    fn bit(spell: SpellId) -> u8 {
        1 << spell.index()
    }

    /// The spaces of `spellbook` (by [`SpellId::index`]) that hold a meeple.
    pub(crate) fn occupied<T>(spellbook: &[Option<T>; 6]) -> Self {
        SpellId::ALL
            .into_iter()
            .filter(|spell| spellbook[spell.index()].is_some())
            .fold(Self::NONE, Self::with)
    }

    pub(crate) fn contains(self, spell: SpellId) -> bool {
        self.0 & Self::bit(spell) != 0
    }

    pub(crate) fn with(self, spell: SpellId) -> Self {
        Self(self.0 | Self::bit(spell))
    }

    pub(crate) fn without(self, spell: SpellId) -> Self {
        Self(self.0 & !Self::bit(spell))
    }

    /// The spells of the set, in the order of [`SpellId::ALL`], found bit by bit.
    pub(crate) fn iter(self) -> impl Iterator<Item = SpellId> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            // Past the last spell (8) once the set is empty.
            let spell = *SpellId::ALL.get(rest.trailing_zeros() as usize)?;
            rest &= rest - 1;
            Some(spell)
        })
    }
}

/// A player, named by the colour of their meeples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayerColor {
    Blue,
    Green,
    Red,
    Yellow,
}

impl PlayerColor {
    pub const ALL: [PlayerColor; 4] = [Self::Blue, Self::Green, Self::Red, Self::Yellow];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Blue => "Blue",
            Self::Green => "Green",
            Self::Red => "Red",
            Self::Yellow => "Yellow",
        }
    }
}

impl fmt::Display for PlayerColor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Apprentice (influence 1) or master (influence 2, the meeple with the star).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rank {
    Apprentice,
    Master,
}

impl Rank {
    pub const ALL: [Rank; 2] = [Self::Apprentice, Self::Master];

    /// "an apprentice", "a master".
    pub fn with_article(self) -> &'static str {
        match self {
            Self::Apprentice => "an apprentice",
            Self::Master => "a master",
        }
    }

    pub fn influence(self) -> u8 {
        match self {
            Self::Apprentice => 1,
            Self::Master => 2,
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Apprentice => "apprentice",
            Self::Master => "master",
        })
    }
}

/// One meeple: whose it is and its rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meeple {
    pub player: PlayerColor,
    pub rank: Rank,
}

impl fmt::Display for Meeple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'s {}", self.player, self.rank)
    }
}

/// The three outer towers (in a triangle) and the central tower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TowerId {
    A,
    B,
    C,
    Central,
}

impl TowerId {
    pub const ALL: [TowerId; 4] = [Self::A, Self::B, Self::C, Self::Central];
    pub const OUTER: [TowerId; 3] = [Self::A, Self::B, Self::C];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn is_central(self) -> bool {
        self == Self::Central
    }
}

impl fmt::Display for TowerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::A => "tower A",
            Self::B => "tower B",
            Self::C => "tower C",
            Self::Central => "the central tower",
        })
    }
}

/// One of the three pillars of a floor, numbered 1 to 3 as printed from left to right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum PillarIndex {
    First,
    Second,
    Third,
}

impl PillarIndex {
    pub const ALL: [PillarIndex; 3] = [Self::First, Self::Second, Self::Third];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn number(self) -> u8 {
        self as u8 + 1
    }
}

impl TryFrom<u8> for PillarIndex {
    type Error = String;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        match value {
            1 => Ok(Self::First),
            2 => Ok(Self::Second),
            3 => Ok(Self::Third),
            _ => Err(format!("a floor has pillars 1, 2 and 3, not {value}")),
        }
    }
}

impl From<PillarIndex> for u8 {
    fn from(pillar: PillarIndex) -> u8 {
        pillar.number()
    }
}

impl fmt::Display for PillarIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pillar {}", self.number())
    }
}

/// The six spells of a spellbook; the space of each spell is the die value that earns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum SpellId {
    Manipulation,
    Change,
    Flip,
    Metamorphosis,
    Exchange,
    Permutation,
}

impl SpellId {
    pub const ALL: [SpellId; 6] = [
        Self::Manipulation,
        Self::Change,
        Self::Flip,
        Self::Metamorphosis,
        Self::Exchange,
        Self::Permutation,
    ];

    /// The spellbook space earned by a die showing `value`.
    pub fn for_value(value: DieValue) -> Self {
        Self::ALL[usize::from(value.get() - 1)]
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn number(self) -> u8 {
        self as u8 + 1
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Manipulation => "Manipulation",
            Self::Change => "Change",
            Self::Flip => "Flip",
            Self::Metamorphosis => "Metamorphosis",
            Self::Exchange => "Exchange",
            Self::Permutation => "Permutation",
        }
    }

    /// What the spell does, in the words of RULINGS.md.
    pub fn description(self) -> &'static str {
        match self {
            Self::Manipulation => {
                "cast any other spell of your spellbook, even one with no meeple on it"
            }
            Self::Change => {
                "add 1 to or take 1 from the value of the die you place (no wrap: 1 stays above 0, 6 below 7)"
            }
            Self::Flip => "turn one rolled die on the table to its opposite face",
            Self::Metamorphosis => {
                "the die you place counts as another colour of your choice for this placement"
            }
            Self::Exchange => "swap a rolled die on the table with a die in the mana pool",
            Self::Permutation => {
                "swap a rolled die on the table with a die on the top floor of the central tower"
            }
        }
    }
}

impl TryFrom<u8> for SpellId {
    type Error = String;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        DieValue::new(value)
            .map(Self::for_value)
            .ok_or_else(|| format!("a spellbook has spaces 1 to 6, not {value}"))
    }
}

impl From<SpellId> for u8 {
    fn from(spell: SpellId) -> u8 {
        spell.number()
    }
}

impl fmt::Display for SpellId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (spell {})", self.name(), self.number())
    }
}

/// How many dice of each colour: the bag's content, or a count of dice anywhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DiceCount([u8; 4]);

impl DiceCount {
    /// The full box: ten dice of each colour.
    pub fn full() -> Self {
        Self([DICE_PER_COLOR; 4])
    }

    pub fn get(&self, color: DieColor) -> u8 {
        self.0[color.index()]
    }

    /// Counts one more die of `color` (a count that cannot grow stays at its maximum, so a
    /// file listing hundreds of dice is reported, never wrapped).
    pub fn add(&mut self, color: DieColor) {
        let count = &mut self.0[color.index()];
        *count = count.saturating_add(1);
    }

    /// Takes one die of `color` out; `false` if there is none.
    pub fn take(&mut self, color: DieColor) -> bool {
        let count = &mut self.0[color.index()];
        if *count == 0 {
            return false;
        }
        *count -= 1;
        true
    }

    #[inline]
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| u32::from(n)).sum()
    }

    pub fn count_dice<'a>(dice: impl IntoIterator<Item = &'a Die>) -> Self {
        let mut count = Self::default();
        for die in dice {
            count.add(die.color);
        }
        count
    }
}

/// What fills a pillar: a die with the meeple placed beside it, a meeple alone (placed by an
/// extra-meeple bonus), or a die alone (a finished tower whose meeples went home).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pillar {
    #[serde(default)]
    pub die: Option<Die>,
    #[serde(default)]
    pub meeple: Option<Meeple>,
}

impl Pillar {
    pub fn is_empty(&self) -> bool {
        self.die.is_none() && self.meeple.is_none()
    }
}

impl fmt::Display for Pillar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.die, self.meeple) {
            (Some(die), Some(meeple)) => write!(f, "the {die} with {meeple}"),
            (Some(die), None) => write!(f, "the {die}"),
            (None, Some(meeple)) => write!(f, "{meeple} alone"),
            (None, None) => f.write_str("nothing"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_die() -> impl Iterator<Item = Die> {
        DieColor::ALL
            .into_iter()
            .flat_map(|color| DieValue::ALL.map(|value| Die::new(color, value)))
    }

    /// The set operations give, kind by kind, what the same change does to each die (a set
    /// of kinds is the union of its kinds, and the operations keep unions).
    #[test]
    fn kinds_move_and_recolour_as_their_dice_do() {
        for die in every_die() {
            let kind = DieKinds::of_die(die);
            assert_eq!(kind.len(), 1);
            for delta in -7..=7 {
                let moved = die
                    .value
                    .offset(delta)
                    .map(|value| Die::new(die.color, value));
                let expected = moved.map_or(DieKinds::NONE, DieKinds::of_die);
                assert_eq!(kind.offset(delta), expected, "{die} by {delta}");
            }
            for color in DieColor::ALL {
                let expected = DieKinds::of_die(Die::new(color, die.value));
                assert_eq!(kind.recoloured(color), expected, "{die} as {color}");
                let expected = match die.color == color {
                    true => DieKinds::of(DieColor::ALL, [die.value]),
                    false => DieKinds::NONE,
                };
                assert_eq!(kind.spread_from(color), expected, "{die} from {color}");
                assert_eq!(
                    DieKinds::of_value(die.value),
                    DieKinds::of(DieColor::ALL, [die.value])
                );
                assert_eq!(DieKinds::of_color(color).contains(die), die.color == color);
            }
        }
        assert_eq!(DieKinds::ALL.len(), 24);
    }

    #[test]
    fn spell_sets_list_their_spells_in_order() {
        let set = SpellSet::NONE
            .with(SpellId::Permutation)
            .with(SpellId::Change)
            .with(SpellId::Manipulation);
        let listed: Vec<SpellId> = set.iter().collect();
        assert_eq!(
            listed,
            [SpellId::Manipulation, SpellId::Change, SpellId::Permutation]
        );
        assert!(
            set.without(SpellId::Change)
                .iter()
                .eq([SpellId::Manipulation, SpellId::Permutation])
        );
        assert_eq!(SpellSet::NONE.iter().count(), 0);
        let spellbook = [None, Some(1), None, None, Some(2), None];
        let occupied: Vec<SpellId> = SpellSet::occupied(&spellbook).iter().collect();
        assert_eq!(occupied, [SpellId::Change, SpellId::Exchange]);
    }
}
