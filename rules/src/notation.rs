//! A compact, typeable notation for actions, used by scenario files, the command line and
//! the app's move entry. Each action is one line:
//!
//! ```text
//! roll yellow2 pink5 blue1 purple6 yellow3
//! red place yellow2 apprentice A1          (towers A, B, C, central; pillars 1-3)
//! red bonus apprentice B3                  (extra meeple from the reserve to pillar 3 of B)
//! red bonus spell4 spellbook               (from spellbook space 4 to the die's space)
//! red skip                                 (decline the pending bonus)
//! red cast change up | change down | flip blue1 | metamorphosis pink
//! red cast exchange blue1 pink5 | permutation blue1 2     (... via manipulation)
//! red recall 3
//! red end
//! tile A blue-odd                          (the tile drawn for the new floor of tower A)
//! ```

use std::fmt::Write;

use crate::action::{Action, BonusTarget, Direction, MeepleSource, SpellEffect};
use crate::components::{
    Die, DieColor, DieValue, PillarIndex, PlayerColor, Rank, SpellId, TowerId,
};

fn color_word(word: &str) -> Option<DieColor> {
    DieColor::ALL.into_iter().find(|c| c.name() == word)
}

fn parse_die(word: &str) -> Result<Die, String> {
    let split = word
        .find(|c: char| c.is_ascii_digit())
        .ok_or_else(|| format!("\"{word}\" is not a die (write colour and value, like yellow2)"))?;
    let (color, value) = word.split_at(split);
    let color = color_word(color)
        .ok_or_else(|| format!("\"{color}\" is not a die colour (pink, purple, yellow or blue)"))?;
    let value = value
        .parse::<u8>()
        .ok()
        .and_then(DieValue::new)
        .ok_or_else(|| format!("\"{value}\" is not a die value (1 to 6)"))?;
    Ok(Die::new(color, value))
}

fn die_word(die: Die) -> String {
    format!("{}{}", die.color.name(), die.value)
}

fn parse_player(word: &str) -> Result<PlayerColor, String> {
    PlayerColor::ALL
        .into_iter()
        .find(|p| p.name().eq_ignore_ascii_case(word))
        .ok_or_else(|| format!("\"{word}\" is not a player (blue, green, red or yellow)"))
}

fn parse_rank(word: &str) -> Result<Rank, String> {
    match word {
        "apprentice" => Ok(Rank::Apprentice),
        "master" => Ok(Rank::Master),
        _ => Err(format!("\"{word}\" is not a rank (apprentice or master)")),
    }
}

fn parse_pillar_number(word: &str) -> Result<PillarIndex, String> {
    word.parse::<u8>()
        .map_err(|_| format!("\"{word}\" is not a pillar number (1 to 3)"))
        .and_then(PillarIndex::try_from)
}

fn parse_tower(word: &str) -> Result<TowerId, String> {
    match word {
        "A" | "a" => Ok(TowerId::A),
        "B" | "b" => Ok(TowerId::B),
        "C" | "c" => Ok(TowerId::C),
        "central" => Ok(TowerId::Central),
        _ => Err(format!("\"{word}\" is not a tower (A, B, C or central)")),
    }
}

fn tower_word(tower: TowerId) -> &'static str {
    match tower {
        TowerId::A => "A",
        TowerId::B => "B",
        TowerId::C => "C",
        TowerId::Central => "central",
    }
}

/// "A1", "B3", "central2".
fn parse_place(word: &str) -> Result<(TowerId, PillarIndex), String> {
    let split = word.char_indices().last().map_or(0, |(i, _)| i);
    let (tower, pillar) = word.split_at(split);
    let tower = parse_tower(tower).map_err(|_| {
        format!("\"{word}\" is not a pillar (write tower and pillar, like A1 or central3)")
    })?;
    Ok((tower, parse_pillar_number(pillar)?))
}

fn place_word(tower: TowerId, pillar: PillarIndex) -> String {
    format!("{}{}", tower_word(tower), pillar.number())
}

fn parse_spell_number(word: &str) -> Result<SpellId, String> {
    word.parse::<u8>()
        .map_err(|_| format!("\"{word}\" is not a spellbook space (1 to 6)"))
        .and_then(SpellId::try_from)
}

fn rank_word(rank: Rank) -> &'static str {
    match rank {
        Rank::Apprentice => "apprentice",
        Rank::Master => "master",
    }
}

impl Action {
    /// Parses one line of the notation described in this module.
    pub fn from_notation(line: &str) -> Result<Self, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let expect = |n: usize| {
            if words.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "\"{line}\": expected {n} words, found {}",
                    words.len()
                ))
            }
        };
        match words.as_slice() {
            ["roll", dice @ ..] => Ok(Action::Roll {
                dice: dice
                    .iter()
                    .map(|w| parse_die(w))
                    .collect::<Result<_, _>>()?,
            }),
            ["tile", tower, tile] => Ok(Action::SetTile {
                tower: parse_tower(tower)?,
                tile: (*tile).to_owned(),
            }),
            [player, verb, rest @ ..] => {
                let player = parse_player(player)?;
                match *verb {
                    "place" => {
                        expect(5)?;
                        let (tower, pillar) = parse_place(rest[2])?;
                        Ok(Action::Place {
                            player,
                            die: parse_die(rest[0])?,
                            rank: parse_rank(rest[1])?,
                            tower,
                            pillar,
                        })
                    }
                    "bonus" => {
                        expect(4)?;
                        let from = match rest[0].strip_prefix("spell") {
                            Some(n) => MeepleSource::Spellbook(parse_spell_number(n)?),
                            None => MeepleSource::Reserve(parse_rank(rest[0])?),
                        };
                        let to = match rest[1] {
                            "spellbook" => BonusTarget::Spellbook,
                            place => {
                                let (tower, pillar) = parse_place(place)?;
                                BonusTarget::Pillar { tower, pillar }
                            }
                        };
                        Ok(Action::BonusMeeple { player, from, to })
                    }
                    "skip" => expect(2).map(|()| Action::SkipBonus { player }),
                    "end" => expect(2).map(|()| Action::EndTurn { player }),
                    "recall" => {
                        expect(3)?;
                        Ok(Action::Recall {
                            player,
                            spell: parse_spell_number(rest[0])?,
                        })
                    }
                    "cast" => {
                        let (rest, via_manipulation) = match rest {
                            [head @ .., "via", "manipulation"] => (head, true),
                            _ => (rest, false),
                        };
                        Ok(Action::Cast {
                            player,
                            effect: parse_effect(rest, line)?,
                            via_manipulation,
                        })
                    }
                    _ => Err(format!(
                        "\"{verb}\" is not an action (place, bonus, skip, cast, recall, end)"
                    )),
                }
            }
            _ => Err(format!("\"{line}\" is not an action")),
        }
    }

    /// The action in the notation of this module.
    pub fn notation(&self) -> String {
        let mut out = String::new();
        let player = self.player().map(|p| p.name().to_lowercase());
        match self {
            Action::Roll { dice } => {
                out.push_str("roll");
                for &die in dice {
                    let _ = write!(out, " {}", die_word(die));
                }
            }
            Action::SetTile { tower, tile } => {
                let _ = write!(out, "tile {} {tile}", tower_word(*tower));
            }
            Action::Place {
                die,
                rank,
                tower,
                pillar,
                ..
            } => {
                let _ = write!(
                    out,
                    "{} place {} {} {}",
                    player.unwrap_or_default(),
                    die_word(*die),
                    rank_word(*rank),
                    place_word(*tower, *pillar)
                );
            }
            Action::BonusMeeple { from, to, .. } => {
                let from = match from {
                    MeepleSource::Reserve(rank) => rank_word(*rank).to_owned(),
                    MeepleSource::Spellbook(spell) => format!("spell{}", spell.number()),
                };
                let to = match to {
                    BonusTarget::Spellbook => "spellbook".to_owned(),
                    BonusTarget::Pillar { tower, pillar } => place_word(*tower, *pillar),
                };
                let _ = write!(out, "{} bonus {from} {to}", player.unwrap_or_default());
            }
            Action::SkipBonus { .. } => {
                let _ = write!(out, "{} skip", player.unwrap_or_default());
            }
            Action::EndTurn { .. } => {
                let _ = write!(out, "{} end", player.unwrap_or_default());
            }
            Action::Recall { spell, .. } => {
                let _ = write!(
                    out,
                    "{} recall {}",
                    player.unwrap_or_default(),
                    spell.number()
                );
            }
            Action::Cast {
                effect,
                via_manipulation,
                ..
            } => {
                let _ = write!(out, "{} cast ", player.unwrap_or_default());
                match effect {
                    SpellEffect::Change { direction } => {
                        let _ = write!(
                            out,
                            "change {}",
                            match direction {
                                Direction::Up => "up",
                                Direction::Down => "down",
                            }
                        );
                    }
                    SpellEffect::Flip { die } => {
                        let _ = write!(out, "flip {}", die_word(*die));
                    }
                    SpellEffect::Metamorphosis { color } => {
                        let _ = write!(out, "metamorphosis {}", color.name());
                    }
                    SpellEffect::Exchange { rolled, pool } => {
                        let _ = write!(out, "exchange {} {}", die_word(*rolled), die_word(*pool));
                    }
                    SpellEffect::Permutation { rolled, pillar } => {
                        let _ =
                            write!(out, "permutation {} {}", die_word(*rolled), pillar.number());
                    }
                }
                if *via_manipulation {
                    out.push_str(" via manipulation");
                }
            }
        }
        out
    }
}

fn parse_effect(words: &[&str], line: &str) -> Result<SpellEffect, String> {
    match words {
        ["change", "up"] => Ok(SpellEffect::Change {
            direction: Direction::Up,
        }),
        ["change", "down"] => Ok(SpellEffect::Change {
            direction: Direction::Down,
        }),
        ["flip", die] => Ok(SpellEffect::Flip {
            die: parse_die(die)?,
        }),
        ["metamorphosis", color] => Ok(SpellEffect::Metamorphosis {
            color: color_word(color).ok_or_else(|| format!("\"{color}\" is not a die colour"))?,
        }),
        ["exchange", rolled, pool] => Ok(SpellEffect::Exchange {
            rolled: parse_die(rolled)?,
            pool: parse_die(pool)?,
        }),
        ["permutation", rolled, pillar] => Ok(SpellEffect::Permutation {
            rolled: parse_die(rolled)?,
            pillar: parse_pillar_number(pillar)?,
        }),
        _ => Err(format!(
            "\"{line}\": a cast is change up|down, flip DIE, metamorphosis COLOUR, exchange DIE DIE or permutation DIE PILLAR"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_round_trips() {
        for line in [
            "roll yellow2 pink5 blue1 purple6 yellow3",
            "red place yellow2 apprentice A1",
            "green place blue6 master central3",
            "red bonus apprentice B3",
            "red bonus master spellbook",
            "blue bonus spell4 C2",
            "red skip",
            "red cast change up",
            "red cast change down via manipulation",
            "red cast flip blue1",
            "red cast metamorphosis pink",
            "red cast exchange blue1 pink5",
            "red cast permutation blue1 2 via manipulation",
            "yellow recall 3",
            "yellow end",
            "tile central pink-odd",
        ] {
            let action = Action::from_notation(line).unwrap();
            assert_eq!(action.notation(), line);
        }
    }

    #[test]
    fn mistakes_are_explained() {
        for (line, expected) in [
            ("red place orange2 apprentice A1", "not a die colour"),
            ("red place yellow7 apprentice A1", "not a die value"),
            ("red place yellow2 apprentice D1", "not a pillar"),
            ("red place yellow2 apprentice A4", "pillars 1, 2 and 3"),
            ("red place yellow2 knight A1", "not a rank"),
            ("purple end", "not a player"),
            ("red dance", "not an action"),
            ("red cast fireball", "a cast is"),
            ("red recall 9", "spaces 1 to 6"),
            ("red place yellow2 apprentice Aé", "not a pillar"),
            ("red bonus apprentice é", "not a pillar"),
        ] {
            let error = Action::from_notation(line).unwrap_err();
            assert!(error.contains(expected), "{line}: {error}");
        }
    }
}
