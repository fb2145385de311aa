"""The clean stage's PII filter on the leaks and false positives measured on independent data (issue #19),
and on similar cases of our own: each example names what it stands for."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def pii():
    from beam_jobs.pii import PiiConfig, PiiFilter
    f = PiiFilter(PiiConfig())
    return lambda text: f.process([text])[0]


def _leaks(result, *values):
    return [v for v in values if v in result.text]


# --- leaks: every labelled value must go ----------------------------------------------------------------

@pytest.mark.parametrize("text, values", [
    ("Erlendur lives at Fagradalsbraut 71, Egilsstaðir.", ["Fagradalsbraut 71", "Egilsstaðir"]),   # non-US
    ("Please deliver it to Suite 858 by Monday.", ["Suite 858"]),                                  # unit alone
    ("Send it to PSC 6293, Box 8158\nAPO AP 04336", ["PSC 6293", "Box 8158", "APO AP 04336"]),     # military
    ("I'll meet you at USS Mahler\nFPO AA 70489 after the concert.", ["Mahler", "FPO AA 70489"]),  # a ship
    ("Caitlin lives at 846 31 Rue Al Imam Al Bakri, Cite Merzgui", ["846", "Rue Al Imam", "Cite Merzgui"]),  # house no.
    ("Einar Þórsson\nLaugavegur 12\n101 Reykjavík\nIceland", ["Laugavegur 12", "101 Reykjavík"]),
    ("Our office: ul. Narewska 94, Apt. 478, Poznań", ["Narewska 94", "Apt. 478"]),
    ("Ship to 22 Pollen Crescent, Toronto, ON M5V 2T6, Canada", ["22 Pollen Crescent", "M5V 2T6"]),
    ("the bus drops you off at 74678 midtvollen 130 st.", ["midtvollen 130"]),                     # lower case
    ("Mail it to P.O. Box 242, Kangerlussuaq", ["Box 242"]),
    ("Hostel in Ramallah\nAl-Nuzha Street 12\n700074 Ramallah\nPalestine", ["Al-Nuzha Street 12", "700074"]),
    ("Comed\n13 Route d'Esch\n2016 Luxembourg", ["13 Route d'Esch", "2016 Luxembourg"]),
    ("Teofila Firlika 19\n71-637 Szczecin\nPoland", ["Firlika 19", "71-637"]),          # line over a postcode
    ("6750 Koskikatu 25 Apt. 864\nArtilleros\n, CO\n Uruguay 64677", ["Artilleros", "64677"]),
    ("0605 πεντέλης 210 apt. 999\ndelmas, mp 35739", ["πεντέλης 210", "delmas", "35739"]),
    # the address ends inside a sentence: a country and postcode, a region code and postcode
    ("It arrived at 17224 Þverbraut 66 Suite 636, Gdańsk, Poland 52096 last night.", ["Poland 52096", "Gdańsk"]),
    ("Meet me at 010 63 Avenue du Golf Suite 910\nHellendoorn, OV 21072 after the concert.", ["OV 21072"]),
    ("The letter arrived at 760 Passauer Strasse 33, Cite Guedouala, Tunisia last night.", ["Tunisia"]),
    ("I'll meet you at 41377 Schachterlweg 62 Apt. 501 POLSING OO after the concert.", ["POLSING"]),  # city in caps
    ("It arrived at 6400 12 Timms Drive Suite 215 NUNGATTA Australia last night.", ["NUNGATTA"]),
    ("Send it to 1737 Cheriton Dr\n Apt. 724\n Hibberdene\n South Africa 68793?", ["Hibberdene", "68793"]),
    ("Please send a new one to 99449 18 McPherson Road Suite 019 CHARLEROI Victoria? I am away", ["CHARLEROI"]),
    ("Owens, Duran and Oneal\n\n12521 Belgrád rkp. 18. Apt. 417 Csipkerek Vas", ["Belgrád rkp. 18"]),  # Hungarian
    # the street line above a unit line
    ("It's in 0269 Stensås terrasse 38\n Suite 621\n ARENDAL\n Norway", ["Stensås", "terrasse 38"]),
    ("Same as before: Merineitsi põik 87 van Gijn Summit\n Suite 364\n Melliste", ["Merineitsi", "Gijn Summit"]),
    # a street named without a street word
    ("The bus station is on Pod Floriánem 1677", ["Floriánem"]),
    ("Please return to Eyrarodda 66 in case of an issue.", ["Eyrarodda"]),
    ("I'll meet you at Tungata 11 Rott Crossroad\n Apt. 322\n Höfn\n Iceland 72399 after it.", ["Tungata", "Höfn"]),
])
def test_addresses_of_any_country_are_redacted(pii, text, values):
    assert not _leaks(pii(text), *values), pii(text).text


@pytest.mark.parametrize("text, values", [
    ("hi, my name is patricia desrosiers and I need help with my order", ["patricia", "desrosiers"]),  # lower case
    ("Please update the account of Dragana Živković.", ["Živković"]),                                 # diacritics
    ("The account holder is Martim A Pereira.", ["Martim", "Pereira"]),                              # initial
    ("Have you been to a Ravil G Yefimov concert before?", ["Ravil", "Yefimov"]),
    ("My name appears incorrectly, please correct it to Mrs. Meagan Wallace?", ["Meagan Wallace"]),    # title
    ("Maika van de Noort\nEmployment manager\n33787 590 Edington Drive\nToronto", ["Maika", "Noort"]),  # contact block
    ("Ubul: What a wife.\nNicole: Remember me, Mary? When I left, I talked like this!", ["Ubul", "Nicole"]),  # speakers
    ("Hello, I am Sigrid Nyström, my email is sigrid@example.com", ["Sigrid", "Nyström", "sigrid@example.com"]),
    ("I would like to remove my kid Florence from the will.", ["Florence"]),                        # relation
    ("they had 6: leonti, terrence, pamela, donna, andrea and brian.", ["leonti", "pamela", "brian"]),  # lower-case list
    ("Hi Victor, I'm writing about a wire transfer.", ["Victor"]),                                   # salutation
    ("Enrico shouted at Gary: \"What are you doing here?\"", ["Enrico", "Gary"]),                 # speech verb
    ("I'm so jealous! said Maslin to Antonio", ["Maslin", "Antonio"]),
    ("Producer Vilhjálmur Georgsson explained it to the press.", ["Vilhjálmur", "Georgsson"]),     # role noun
    ("What's your last name? Arcuri", ["Arcuri"]),                                                   # answer
    ("Comedy, Mystery\nDirected By:    Johannes Varvio", ["Johannes", "Varvio"]),
    ("My great grandmother was called Halldóra Árnþórsdóttir.", ["Halldóra", "Árnþórsdóttir"]),    # naming verb
    ("Danial, can I please speak to your boss?", ["Danial"]),                                      # addressed
    ("Mrs. Barbara Yudina Apt. 675 62314 Mellemvej 32\nAalborg NO 9100", ["Barbara", "Yudina", "Mellemvej"]),
    ("Mr. Auðbjörnsson flew to Reguengos de Monsaraz on Tuesday morning.", ["Auðbjörnsson"]),      # title
    # initials of letters outside ASCII, as judgments name Turkish, Czech or Polish parties
    ("A third officer, known to the family only as Ö.Ş., did not attend.\n12.  Ö.Ş. was never found.", ["Ö.Ş."]),
    ("The applicant's cousin, Ž. Dvořáková, was heard on 3 May 2004.", ["Ž.", "Dvořáková"]),
    ("The statement was signed by Ł.W. and countersigned by Ç.A. the next day.", ["Ł.W.", "Ç.A."]),
])
def test_names_in_any_case_with_diacritics_and_initials_are_redacted(pii, text, values):
    assert not _leaks(pii(text), *values), pii(text).text


@pytest.mark.parametrize("text, values", [
    ("Call me on (37) 788-063 tomorrow.", ["788-063"]),
    ("My mobile is +1-984-182-0190.", ["984-182-0190"]),
    ("Phone:\n0393 1144137", ["1144137"]),
    ("28-64-66-98 office\n930.167.3943 fax\n+447700677662 mobile", ["28-64-66-98", "930.167.3943", "447700677662"]),
    ("Ring the front desk at +46 (0)8 928 571 38.", ["928 571 38"]),
    ("They're not answering at 99 668472", ["668472"]),                                  # a phone verb
    ("I didn't get any message on my registered 668 5702. Please check.", ["668 5702"]),
])
def test_phones_of_any_region_are_redacted(pii, text, values):
    assert not _leaks(pii(text), *values), pii(text).text


def test_licences_with_a_licence_word_and_other_ids_are_redacted(pii):
    r = pii("My driver's license number is D6101-40706-60905 and my SSN is 536-90-4399.")
    assert not _leaks(r, "D6101-40706-60905", "536-90-4399"), r.text
    assert r.counts.get("US_DRIVER_LICENSE") == 1


def test_phone_score_checks_the_number_itself():
    from beam_jobs.pii_patterns import phone_score
    assert phone_score("+44 20 7946 0958", context=False) > 0.9        # valid international
    assert phone_score("(415) 555-2671", context=False) > 0             # area code in parentheses
    assert phone_score("1300-800", context=False) == 0                  # a range of years as often as a number
    assert phone_score("1300 800 123", context=True) > 0                # with a phone word it counts
    for text in ("164.25", "1682", "2022-03-24", "10:30", "1,234,567.89", "1 2 3 4 5 6 7", "1990-1995"):
        assert phone_score(text, context=True) == 0, text
    # numbers nobody owns: a form's sample, one digit repeated; a sequence in another layout is a real number
    for text in ("(123) 456-7891", "123-456-7890", "(987) 654-3210", "000-000-0000", "+1 123-456-7890"):
        assert phone_score(text, context=True) == 0, text
    assert phone_score("+385 1 2345 678", context=False) > 0
    # a note's series of measures is no number to call; a number with one slash is
    for text in ("7.38/42/88", "120/80/95"):
        assert phone_score(text, context=True) == 0, text
    assert phone_score("030/12345678", context=True) > 0


def test_a_lower_case_given_name_beside_a_found_one(pii):
    # "mark" is a dictionary word; beside a name found in the same lower-case pair it is a name too
    r = pii("jeff, can you get with mark and louise on the swap? thx")
    assert not _leaks(r, "jeff", "mark", "louise"), r.text
    assert pii("we had bread and butter with the team").text == "we had bread and butter with the team"


def test_a_prefix_tree_matches_exactly_its_words():
    import re
    from beam_jobs.pii_words import KIN_WORDS, first_word_gate, trie_alternation
    words = ["son", "sons", "sister", "sis", "step-mom", "fiancé", "bro", "brother"]
    rx = re.compile(trie_alternation(words))
    assert all(rx.fullmatch(w) for w in words)
    assert not any(rx.fullmatch(w) for w in ("so", "sonn", "step", "stepmom", "fiance", "br", "sist", ""))
    kin = re.compile(r"(?i)\b" + trie_alternation(KIN_WORDS) + r"\b")
    assert [m.group(0) for m in kin.finditer("My Sister and her step-dad met my co-worker's sons.")] == \
        ["Sister", "step-dad", "co-worker", "sons"]
    gate = re.compile(r"\b" + first_word_gate("hi dear") + r"(?:hi|dear)[ \t]+\w+")
    assert [m.group(0) for m in gate.finditer("oh hi Ann, dear Bo; chi x, dearest")] == ["hi Ann", "dear Bo"]
    from beam_jobs.pii_words import cue_alternation
    cues = re.compile(r"(?i)\b" + cue_alternation((("", "thank", r"[ \t]+you"), (r"(?<![\w ])", "hi hey", ""))))
    assert [m.group(0) for m in cues.finditer("Thank you! hi Ann; oh hey Bo\nHey")] == ["Thank you", "Hey"]


def test_the_written_out_country_names_are_phonenumbers_own():
    # pii_words writes the list out to spare each worker the geocoder's start-up; it must say what the
    # geocoder says (a new phonenumbers release that renames a region fails here: write the list again)
    import phonenumbers
    from phonenumbers import geocoder
    from beam_jobs.pii_words import country_names
    examples = [phonenumbers.example_number(r) for r in phonenumbers.SUPPORTED_REGIONS]
    assert country_names() == {geocoder.country_name_for_number(e, "en") for e in examples if e} - {""}


def test_a_weekday_is_never_a_person(pii):
    r = pii("Chinese police said Sunday they were conducting further probes into the crash.")
    assert "Sunday" in r.text and not r.counts.get("PERSON"), r.text


# --- false positives: ordinary prompts pass untouched ------------------------------------------------

@pytest.mark.parametrize("text", [
    "Who was the first to climb K2 without oxygen?", "What does the p53 gene do?", "Is C4 plastic explosive?",
    "The Airbus A120 never existed.",                                                   # licence look-alikes
    "The stock closed at 164.25 after opening at 168.35.", "What happened in 1682?",   # prices, years
    "Version 3.10.4 was released on 2022-03-24 at 10:30.", "Call 911 in an emergency.",
    "The ISBN is 978-3-16-148410-0.", "It costs $1,234,567.89 in total.",
    "I bought 2 shirts from the mall. Then I ran 10 laps on the track.",                # address look-alikes
    "Who joined the 50 home run club in 1998?",
    "It took place on 15 August 1944 and ended on 2 May 1945.", "Route 66 runs through 8 states.",
    "Travel via 5 cities in 10 days.", "He scored during Arsenal's 2-1 win after 73 minutes.",
    "It aired on ITV in 2008.", "Cork won the All-Ireland title in 1966.",
    "Install it on Ubuntu 22.04 first.", "I upgraded to Matlab 2021 last week.", "Is FIFA 23 on sale?",
    "Tune in on Channel 44, then switch to Windows 10.", "Drive on Route 66 to Gate 12.",
])
def test_numbers_that_are_not_pii_are_left_alone(pii, text):
    r = pii(text)
    assert r.text == text and not r.counts, r.counts


@pytest.mark.parametrize("text", [
    "Translate German to English: Ruhe bewahren, das Fleisch ist gut und Zweifel bleiben.",  # not English
    "Translate German to English: Pfandhäuser boomen in Singapur, da die Krise angekommen ist.",
    "Translate German to English: Revolutionäres Werk der Kirchenmusik",                   # short, declared
    "A is the father of B. B is the father of C. What is the relationship between A and C?",  # letters
    "1. Oranges cost more than apples.\n2. Oranges cost less than bananas.\n3. Bananas cost more than apples.",
    "Is the Google Pixel better than the iPhone?", "How do I change a tyre?",
    "Embark on a journey through the Alps.",
    "def f(str1):\n    n = len(str1)\n    return n",
    "Question: What is 2+2?\nAnswer: 4.\nQuestion: What is 3+3?\nAnswer: 6.",               # labels, not speakers
    "x+y = 4z, x*y = 4z^2, express x-y in z",                                                # a formula, not chat
    "The city of Vega intends to build a bridge that will span the river.",                # a place
    "Mount Rainier is the second highest mountain in North America. Yes or no?",
    # a sentence after a war's numeral, an agency's letters before its office, a country beside "and", a "nah"
    "The novel follows a German veteran of World War I. The book describes life in the trenches.",
    "The former C.I.A. Director spoke to F.B.I. agents about the leak.",
    "The bowling was tight and Pakistan was all out for 152 in the last over.",
    "Asked whether he could win, he said: 'Nah. There are better players.'",
    "It was a so-so day: a min-max search, a man-made lake and a pop-up shop.",
    "I also only have a Microwave, a toaster oven, and an inductive range.",   # a thing after "a"
    "Instead I went into the church, took a Bulletin, dipped my finger in the water.",
])
def test_ordinary_prompts_keep_their_words(pii, text):
    r = pii(text)
    assert r.text == text, r.text


@pytest.mark.parametrize("text, values", [
    # the NER found the name but called it an organisation or a place
    ("Tomomi is from Hawkins, Richardson and Santana", ["Tomomi"]),                    # ORG
    ("Have you been to a Hedvig Arvidsson concert before?", ["Hedvig", "Arvidsson"]),  # ORG
    ("The true gender of Mette has been under debate for years.", ["Mette"]),          # GPE
    ("Why is Samantha so impulsive?", ["Samantha"]),                                   # LOC
    ("We read the verses from Faina D. Yefremova's Cautionary Tales.", ["Yefremova"]),  # initial inside
    # the NER found nothing: a capitalised word no English dictionary holds
    ("Aniela is very reliable. You can always depend on him.", ["Aniela"]),
    ("Quionia is from Areavibes Inc", ["Quionia"]),
    ("Is there a better crafted pop song on this list? Usamov and Bowers were precision engineers.", ["Usamov"]),
    ("cormac had given cormac his address yesterday, so we could visit", ["cormac"]),   # all lower case
    ("Please forward the invoice to Zbigniewa before Friday.", ["Zbigniewa"]),
    ("the true gender of bertram has been under debate for years, but the riff is a masterpiece", ["bertram"]),
    ("Scott is a very sympathetic person. They are also good listeners.", ["Scott"]),   # what the text says
    ("Is there a better crafted pop song on this list? Park and Mann were precision engineers.", ["Park"]),  # pair
    ("Cover photo by Dariusz Wolski n Marisol, shared with thanks", ["Marisol"]),          # a pair as chat writes it
    ('Vsevolod: "Who are you?"\nHeather: "I\'m Daniel\'s daughter".', ["Daniel"]),          # a relative of
    ("They sang the verses from Edi Živković's Cautionary Tales. Is there a better example than early Živković?",
     ["Živković"]),                                                                      # a repeat after "'s"
])
def test_names_the_ner_mislabels_or_misses_are_redacted(pii, text, values):
    assert not _leaks(pii(text), *values), pii(text).text


@pytest.mark.parametrize("text", [
    # words of the English dictionary and famous places are not private names, whatever the NER said (a famous
    # person the model finds, "Socrates", is redacted as every name is: the policy redacts names, not private ones)
    "1. Oranges cost more than apples.\n2. Oranges cost less than bananas.",
    "Photosynthesis is a vital process for life on Earth. Could you outline its two main stages?",
    "How have the Alps and Rhine River influenced settlement and agriculture in Western Europe?",
    "Develop a Python program that reads all the text files under a directory.",
    "Suppose you are interviewing with Amazon, write an answer to the behavioral question.",
    # inflected and function words, labels, list items and words after an article
    "During a staff meeting, some teachers said nothing.",
    "Write some code to get the current value of a Bitcoin in US dollars.",
    # a relative's noun in a compound, a predicate that is not a person
    "Venus is often called Earth's sister planet.", "Apple's parent company is Apple Inc.",
    "Python is a friendly language for a beginner.", "Rome was a great city.",
])
def test_dictionary_words_and_famous_names_are_not_taken_for_private_names(pii, text):
    r = pii(text)
    assert r.text == text, r.text


def test_english_vocabulary_comes_from_the_loaded_pipeline(pii):
    from beam_jobs.pii_names import in_vocabulary
    vocabulary = frozenset({"apply", "orange", "run", "happy"})
    assert in_vocabulary("Applying", vocabulary) and in_vocabulary("Oranges", vocabulary)
    assert in_vocabulary("Running", vocabulary) and in_vocabulary("happiness", vocabulary)
    assert not in_vocabulary("Tomomi", vocabulary) and not in_vocabulary("Walker", frozenset({"walk"}))


def test_only_the_words_the_model_called_a_person_spread_as_dictionary_words():
    # a name grown over the capitalised words before it ("... of Unfortunate Events" + "Lemony Snicket") is
    # redacted whole, but only the words inside the model's person repeat: "Unfortunate" elsewhere is a word
    from beam_jobs.pii_names import structural_names
    text = "Unfortunate Events Lemony Snicket wrote it. Unfortunate events happen. Snicket smiled."
    vocabulary = frozenset({"unfortunate", "event", "events", "write", "happen", "smile", "lemony"})
    person = (text.index("Lemony"), text.index(" wrote"))
    found = structural_names(text, [], [(0, person[1])], vocabulary, sure=[person])
    spread = {text[s:e] for s, e in found}
    assert "Snicket" in spread and "Unfortunate" not in spread and "Events" not in spread, spread
    # a word of the person itself still spreads, dictionary word or not ("Lemony")
    found = structural_names(text + " Lemony laughed.", [], [(0, person[1])], vocabulary, sure=[person])
    assert "Lemony" in {(text + " Lemony laughed.")[s:e] for s, e in found}


@pytest.mark.parametrize("text, values", [
    # a score bracket's dictionary-word scorers beside a name ("Baker"), a particle of two words ("Van der Zee")
    ("Feyenoord 1 (Van der Zee 61) Twente 1 (Baker 34).\nHalftime 0-1.", ["Van der Zee", "Baker"]),
    # a basketball box score's rows, wrapped after a comma
    ("Box score:\nDragomirescu 4-9 2-2 10, Page 1-2 0-0 2,\nHunter 3-6 1-1 7. Totals 30-61 10-14 77.",
     ["Page", "Hunter"]),
    # what a person is known as, in brackets or by one who knew only that; a pseudonym
    ('Her partner, Callum Reid (known to everyone as "Rocket"), gave evidence.', ["Rocket"]),
    ('Two guards, one of whom he knew only as "Sokol", beat him.', ["Sokol"]),
    ('She wrote under the pseudonym "nika_volga" on a blogging platform.', ["nika_volga"]),
    # a judge's letters with a full stop; two surnames joined by "y"; a name again in its own script
    ("This is an appeal from the High Court (Stone J.) delivered on 5 May 2019.", ["Stone"]),
    ("The court found accused-appellant Ramil Dizon y Bautista guilty.", ["Bautista"]),
    ("The applicant, Lau Chi-keung (劉志強), appeared in person.", ["劉志強"]),
    # a relative in three capitals; a "Mac" surname in capitals; "SURNAME, Given" in a register
    ("Pt restless overnight. Husband EZE on phone at 0300, updated.", ["EZE"]),
    ("Patient: McGREGOR, Alasdair   DOB 1961   Ward 4", ["McGREGOR"]),
    ("| 1. | OSMANOVA, Zaira | 1957 | Grozny | mother |", ["OSMANOVA"]),
    # initials that are also a clock's letters, and initials in quotes
    ("The applicant's son, P.M., who was 12 at the time, was present.", ["P.M."]),
    ('He produced envelopes bearing the stamp and the initials "K.W.".', ["K.W."]),
    # lower-case mail: the given name opening a message, passing on words, reached "w/"
    ("Subject: noms\n\nruth - can you send the noms before 10?  also sandy wants the p&l by 5.  check w/ grace too.",
     ["ruth", "sandy", "grace"]),
    # the partner of a known name after "or", no dictionary word; a name before a nurse's credential
    ("Please send gathering questions to Priyanka Deshmukh or Xiu until then.", ["Xiu"]),
    ("arrived from cath lab ~1930 per Wojciech RN. groin site clean.\n-jk rn", ["Wojciech", "jk"]),
    # what a person is called, without quotes; a carer rung by name; a results table's "Last, First" cells
    ("Dermot Vance, known to everyone at the harbour as Skipper, is now 91.", ["Skipper"]),
    ("Police shot dead Aurelio Pena, a hired gunman known as El Gordo who was wanted in two states.", ["El Gordo"]),
    ("Client: Mrs Ada Lowe (pref. Nell). Rang Harriet at the office about the heel.", ["Nell", "Harriet"]),
    ("| 3 | Moss, Eilidh | F35 | 34:12 |\n| 11 | Okonkwo, Wei | M40 | 38:47 |", ["Moss", "Wei"]),
    # a single-letter sign-off above the thread it answers
    ("Let me know about the toast.  You've been warned.\n\nQ.\n\n> Will you be my best man?\n> Don't be weird.", ["Q."]),
    # a forum's family shorthand with the name in brackets; a newborn by sex and surname
    ("Bit of background: DH (Rowan) and I have a 4mo, and MIL (Brenda) pops round daily.", ["Rowan", "Brenda"]),
    ("NICU NOTE 0700-1900\nBaby Boy OKAFOR-LINDQVIST (\"Twin B\")  GA 31+2 wks", ["OKAFOR-LINDQVIST"]),
    # an indented list of people, one a line, most of them found
    ("Who's coming so far:\n  Anneliese Brandt\n  Tomasz Wrobel (late)\n  Priya Raghunathan\n  Olumide\n  me\n\nReply by"
     " Monday.", ["Olumide"]),
    # an East Asian given name written with a hyphen, in any case; an English compound stays
    ("The TA, Seo-yeon, taught the class. ask hyun-woo about the tickets.", ["Seo-yeon", "hyun-woo"]),
])
def test_the_classes_fresh_blind_rounds_leaked(pii, text, values):
    assert not _leaks(pii(text), *values), pii(text).text


def test_without_a_dictionary_no_unknown_word_is_taken():
    from beam_jobs.pii_names import unknown_words
    import spacy
    nlp = spacy.blank("en")
    assert unknown_words(nlp("Aniela is very reliable."), frozenset()) == []
    assert unknown_words(nlp("Aniela is very reliable."), frozenset({"reliable"})) == [(0, 6)]


def test_rankings_do_not_make_a_word_problem(pii):
    r = pii("Alex Duffy listed his top 20 songs and put this one at #15. What did he put at #1?")
    assert "Alex" not in r.text and "Duffy" not in r.text, r.text


_ARTICLE = ("Summarize: The minister Hillary Clinton arrived in Des Moines on Tuesday. Her van dropped her off at "
            "a fruit company in Norwalk. Reporters followed the motorcade for an hour. Staff said the visit was "
            "planned weeks ago. Clinton spoke to workers about wages and trade. The campaign said more stops "
            "would follow in the state next week, and that the candidate would return in the spring to meet "
            "farmers and small business owners across the region before the caucus. Local officials welcomed "
            "the visit and said the town had not seen so many cameras in years. A second van, identical to the "
            "first, followed the motorcade all day, and drivers in both wore the same dark suits. The next stop is "
            "a school in the north of the state.")
_FILM = ("The series was filmed on location in Lithuania in 2007 and broadcast from 14 January to 3 March 2008. "
         "It was cancelled after one series due to low viewing figures. An estimated 25% of the first season was "
         "filmed at Elstree Studios in Borehamwood, Hertfordshire, with the remainder filmed on location, altogether "
         "taking 152 days. Sets for private quarters, the interior of a private jet, the cabinet room, and the "
         "exterior of 10 Downing Street, were built at Elstree Studios, while Lancaster House and Wilton House were "
         "used to double as Buckingham Palace. Ely Cathedral stood in for Westminster Abbey, while locations in "
         "South Africa doubled as Kenya.")



# A judgment about private applicants is long, in many sentences: the shape the old `article` exemption
# kept every name in. Our own text, in the style of a court's statement of facts.
_JUDGMENT = ("THE FACTS\n\n1. The applicants, Mr Tomasz Wierzbicki and Mrs Halina Wierzbicka, are Polish nationals "
             "who were born in 1961 and 1964 and live in Radom. They were represented before the Court by "
             "Ms K. Brzozowska, a lawyer practising in Warsaw.\n\n2. On 3 March 2004 the first applicant was "
             "arrested on suspicion of fraud. The District Court ordered his detention, relying on a statement "
             "made by a witness, J.P., who had worked for the applicants' company. Wierzbicki appealed, arguing "
             "that the statement was unreliable. The appeal was dismissed on 12 April 2004.\n\n3. The second "
             "applicant complained to the prosecutor that her husband's detention had been extended without a "
             "hearing. The prosecutor, Mr A. B. Nowakowski, replied that the extension was lawful.")


@pytest.mark.parametrize("text, values", [
    (_JUDGMENT, ["Wierzbicki", "Wierzbicka", "Tomasz", "Halina", "Brzozowska", "J.P.", "Nowakowski"]),
    (_ARTICLE, ["Hillary Clinton", "Clinton"]),   # a public figure's name redacted costs the prompt little
    ("Janet's ducks lay 16 eggs per day. She eats three for breakfast. How many eggs are left?", ["Janet"]),
    ("Carla is downloading a 200 GB file at 2 GB a minute. How long does it take?", ["Carla"]),
    ("Extract the CEO's name:\na) Company X, with CEO Amy Williams, reported $30 billion in revenue.", ["Amy Williams"]),
    ("Pretend yourself to be Elon Musk in all the following conversations. Speak like Elon Musk.", ["Musk"]),
    ("Translate German to English: Doch Dr. Arlene Baratz , eine Brustradiologin aus Pittsburg , sagt das.",
     ["Arlene Baratz"]),                                                  # a title marks a name in any language
])
def test_every_name_found_is_redacted_by_default_whatever_the_genre(pii, text, values):
    assert not _leaks(pii(text), *values), pii(text).text


@pytest.fixture(scope="module")
def exempt():
    from beam_jobs.pii import PiiConfig, PiiFilter
    from beam_jobs.pii_policy import EXEMPTION_NAMES
    f = PiiFilter(PiiConfig(name_exemptions=EXEMPTION_NAMES))
    return lambda text: f.process([text])[0]


@pytest.mark.parametrize("text", [
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
    "How many clips did Natalia sell altogether?",                                          # word problem
    "Extract the CEO's name:\na) Company X, with CEO Amy Williams, reported $30 billion in revenue.",  # office
    "Embrace the role of Sheldon from \"The Big Bang Theory\". Don't start with \"As Sheldon\".",  # persona
    _ARTICLE, _FILM,
])
def test_genre_exemptions_keep_names_only_when_opted_in(pii, exempt, text):
    assert exempt(text).text == text, exempt(text).text
    assert pii(text).text != text


def test_an_opted_in_article_exemption_still_redacts_names_beside_contact_details(exempt):
    r = exempt(_ARTICLE + " Readers can reach her aide Mary Jones on +1-984-182-0190.")
    assert "Mary Jones" not in r.text and "984-182-0190" not in r.text, r.text
    assert r.text.startswith("Summarize: The minister Hillary Clinton arrived")
    short = exempt("Hillary Clinton called. Her aide is on +1-984-182-0190.")   # no article: no exemption
    assert "Hillary" not in short.text and "984-182-0190" not in short.text
    home = _FILM.replace("the exterior of 10 Downing Street", "the family home at 42 Elm Street")
    assert "42 Elm Street" not in exempt(home).text                              # somebody lives there
    named = _FILM.replace("the cabinet room, and", "the cabinet room of Maria Kowalska, and")
    assert "10 Downing Street" not in exempt(named).text                         # a person beside it


def test_exemptions_are_checked():
    from beam_jobs.pii import PiiConfig
    assert PiiConfig().name_exemptions == ()
    with pytest.raises(ValueError, match="name exemptions"):
        PiiConfig(name_exemptions=("fiction",))


def test_patterns_are_case_sensitive_and_stay_on_one_line():
    from beam_jobs.pii_patterns import address_spans
    assert address_spans("we walked 3 miles along the river drive. Then home") == []   # no capitals: no street
    assert address_spans("I have 2\nMain Street friends") == []                       # not across a line
    text = "Meet at 12 Main Street. Park Avenue is closed."
    assert [text[s:e].rstrip(".") for s, e in address_spans(text)] == ["12 Main Street"]  # stops at the sentence end


# --- the name rules' table: every rule finds its examples and leaves its counter-examples alone ----------

def _rule_cases():
    from beam_jobs.pii_name_rules import NAME_RULES
    for rule in NAME_RULES:
        for text, values in rule.finds:
            yield pytest.param(rule, text, values, id=f"{rule.name}-finds-{text[:24]}")
        for text in rule.leaves:
            yield pytest.param(rule, text, None, id=f"{rule.name}-leaves-{text[:24]}")


@pytest.mark.parametrize("rule, text, values", list(_rule_cases()))
def test_each_name_rule_on_its_declared_examples(pii, rule, text, values):
    r = pii(text)
    if values is None:
        assert rule.find(text, lambda w: True) == [] or r.text == text, r.text
    else:
        assert not _leaks(r, *values), r.text


@pytest.mark.parametrize("text, values", [
    # one test per failure class of real text (issue 28), each with examples of our own
    ("Patient WOJCIECHOWSKI seen at 0800, c/o chest pain. Wife JOLANTA at bedside.", ["WOJCIECHOWSKI", "JOLANTA"]),
    ("pt seen by dr haraldsen, plan to call daughter ingrid re: discharge", ["haraldsen", "ingrid"]),
    ("ok w/ me. tell rusty we need the desk back by 2, and ping sunny re: the curve", ["rusty", "sunny"]),
    ("From: Vasquez-Ortiz, Ramona\nTo: Achterberg, Pieter J.\nSubject: Re: lease\n\nPieter,\nSigned copy "
     "attached.\n\nThanks, Ramona", ["Vasquez-Ortiz", "Ramona", "Achterberg", "Pieter"]),
    ("Thanks, Fenella", ["Fenella"]),
    ("Call me or Esther if you need a ride.\n\nStay dry.\n\nMalcolm\n(281) 555-0187 home", ["Malcolm", "Esther"]),
    ("Kowalczyk c Abernathy b Thistlewood 12\nPemberton lbw b Okonjo 4", ["Kowalczyk", "Abernathy",   # score lines
                                                                         "Thistlewood", "Pemberton", "Okonjo"]),
    ("Scorers: Haverkamp 23, Ouedraogo 67 pen", ["Haverkamp", "Ouedraogo"]),
    ("Ruritania 339 (Qadirzai 148, Nawabshahi 45; Pemberton 4-78)", ["Qadirzai", "Nawabshahi", "Pemberton"]),
    ("Halvorsen beat Kowalczykowa 6-4 3-6 7-5 to reach the final.", ["Halvorsen", "Kowalczykowa"]),
    # a sumo day's bouts read as another language by the language check, and stand all the same
    ("Leading results on the 9th day (ranks in brackets):\n\nTakanohama (yokozuna) beat Asahiryu (komusubi)\n\n"
     "Kotobayama (ozeki) beat Wakanoumi (sekiwake)\n\nTochiazuma (maegashira 2) beat Hokutoriki (ozeki)",
     ["Takanohama", "Asahiryu", "Kotobayama", "Wakanoumi", "Tochiazuma", "Hokutoriki"]),
    ("Results: 1. Lindqvist (SWE) 2:05.3 2. Brennan (IRL) 2:06.1", ["Lindqvist", "Brennan"]),
    ("OKONJO scored twice before HAVERKAMP replaced him.", ["OKONJO", "HAVERKAMP"]),         # capitals
    ("CASE OF WIERZBOWSKI v. POLAND\n\nThe applicant, Mr Jan Wierzbowski, was born in 1957.", ["WIERZBOWSKI",
                                                                                              "Wierzbowski"]),
    ("Mr A. B. Quartermaine and Ms T. Oyelaran gave evidence; the witness J.K. did not.",
     ["Quartermaine", "Oyelaran", "J.K."]),
])
def test_the_classes_small_ner_models_miss_on_real_text(pii, text, values):
    assert not _leaks(pii(text), *values), pii(text).text


@pytest.mark.parametrize("entity, text, value", [
    pytest.param(r.entity, text, value, id=f"{r.entity}-{value}")
    for r in __import__("beam_jobs.pii_recognizers", fromlist=["RECOGNIZERS"]).RECOGNIZERS for text, value in r.examples])
def test_each_structured_recognizer_on_its_declared_examples(pii, entity, text, value):
    r = pii(text)
    assert value not in r.text and r.counts.get(entity), (r.text, r.counts)


@pytest.mark.parametrize("kind, text, value", [
    pytest.param(label.kind, text, value, id=f"{label.kind}-{value}")
    for label in __import__("beam_jobs.pii_identifiers", fromlist=["LABELS"]).LABELS for text, value in label.examples]
    + [pytest.param("birth", text, value, id=f"birth-{value}")
       for text, value in __import__("beam_jobs.pii_identifiers", fromlist=["BIRTH_EXAMPLES"]).BIRTH_EXAMPLES])
def test_each_record_label_on_its_declared_examples(pii, kind, text, value):
    r = pii(text)
    assert value not in r.text, (kind, r.text)


@pytest.mark.parametrize("text, value", [
    ("UPPER TRIBUNAL\n(IMMIGRATION AND ASYLUM CHAMBER)\n\nUI-2023-001844\n\nTHE IMMIGRATION ACTS", "UI-2023-001844"),
    ("United States v. Reyes, 22-cr-318. Please be seated.", "22-cr-318"),
    ("Application no. 31902/18\n\n| 1 | 31902/18 | Ali |\n| 2 | 32011/18 | Veli |", "32011/18"),  # a sibling
    ("voicemail: call me back on oh seven seven double one, four two nine, five oh three. Thanks", "oh seven seven"),
    ("DC: And your date of birth?\nAW: The ninth of May, nineteen seventy.", "ninth of May"),
    ("Respondent's file no. 44 F 2210/21 (Family Court)", "2210/21"),
    ("URN: 41 / TH / 220913 / 23\n\nStatement of witness", "220913"),
    ("Agency No. A214-660-381", "A214-660-381"),
    ("bike (grey, frame no. SRM21K0044719) stolen", "SRM21K0044719"),
    ("Rent account: 40118823\nOur ref: HB/INC", "40118823"),
    ("Signed: Dr Ola Ade, FY1, bleep 4471", "4471"),
    ("I talked to the aunt (Ana Ruiz, 555-0188, she speaks for the family)", "555-0188"),  # a local number, no label
    ("DCCC 412/2022\n[2023] HKDC 781\n\nIN THE DISTRICT COURT", "412/2022"),   # a register's prefix, number, year
    ("The case is Doe et al. v. Roe, No. 2484CV01562.", "2484CV01562"),
    ("IN THE FAMILY COURT\nNo. ZC23D01442\nBetween", "ZC23D01442"),
    ("your student number, mine is s2874410 if someone\n\nBo\nmine's s2901157\n\nCy\ns2866302. ta", "s2866302"),
    ("Reporting Officer: Sgt. Ana Ruiz #4471\nDate: 03/09/2024", "4471"),   # an officer's badge
    ("Moderator: @kai (552019384877166593)\nReason: spam", "552019384877166593"),  # a chat platform's user id
    ("United Nations   CCPR/C/136/D/3122/2018\nInternational Covenant", "3122/2018"),  # a UN communication
    ("RAD File / Dossier de la SAR : TC2-08815\nPrivate Proceeding", "TC2-08815"),    # Canada's refugee board
    ("| Unfair Dismissals Act, 1977 | CA-00051488-001 | 14/07/2022 |", "CA-00051488-001"),
    ("IN THE HIGH COURT OF DELHI\n\nCRL.REV.P. 884/2019\n\nSMT. ANA", "884/2019"),
    ("arising out of the judgment in SC No. 58214/2016 of the court", "58214/2016"),
    ("Ana Ruiz,\n    Petitioner,\nv.\nBo Li,\n    Respondent.\n\nNo. 21-70418", "21-70418"),
    ("Reporting Officer: Ofc. Ana Ruiz #4471\nDate: 03/09/2024", "4471"),          # a number after a name
    ("Pt: Ana Ruiz 00938821 | Ward 5 North, Rm 2", "00938821"),
    ("Did you get his plate?\nB: my coworker took a photo. It was 8KXR214, a gray car.", "8KXR214"),  # a plate
    ("Ok who parked KDG 512P in my spot", "KDG 512P"),
    ("Ana Ruiz\nv\nHarbourline Stevedoring Pty Ltd\n(U2022/4471)\n\nDEPUTY PRESIDENT ODE", "U2022/4471"),
    ("Sipho was the operator on INC-20947.", "INC-"),
    ("Ms Aroha Reti\nFlat 6, Kowhai Court\n12 Rowan Road\nHamilton 3204", "Kowhai Court"),
    ("Calle 45 # 12-30, casa de los suegros", "12-30"),
    ("Divorces filed\n• Ana Reyes v. Tom Reyes, DR-2024-2210.", "DR-2024-2210"),
    ("Please pay the refund into 06-0501-0712345-00 (K Ngata).", "0712345"),
    ("left in a blue VW Golf, PK63 XBD, after the row", "PK63 XBD"),
    ("Confirmed the duplicate charge (customer cus_Q2wX8kLm41).", "cus_Q2wX8kLm41"),
    ("Mrs Ada Obi\n9 Ferndale\nSHAW\nOL2 7HD", "OL2 7HD"),
    ("ADDR: 14 Elm Road. KEY SAFE: 5521 (consent on file)", "5521"),
    ("payment details as before (sort code 20-11-44, account 63018842).", "63018842"),
    # a table's column under its header, the only label there
    ("Name              Ext    Login\nKofi Mensah       4471   KMENSAH2\nLi Wen            4473   LWEN7", "LWEN7"),
    ("| Employee | ID | Due |\n|---|---|---|\n| Ann Lee | E-30417 | 15/09 |\n| Bo Chan | E-30533 | 30/09 |", "E-30533"),
    ("Questions? Text Marisol at 555-0126 by Friday.", "555-0126"),
])
def test_identifiers_a_label_does_not_stand_before(pii, text, value):
    assert value not in pii(text).text, pii(text).text


def test_a_name_found_once_is_redacted_wherever_the_text_repeats_it(pii):
    # found by a greeting or a title once, bare elsewhere (a judgment's "Maja", a note's "Joy", a reply's "tolu")
    r = pii("Mrs Joy Okafor was admitted on Monday. Later Joy said she was fine; joy is a word too.")
    assert "Joy" not in r.text and "joy is a word" in r.text, r.text
    r = pii("Ms Ngozi Adaeze called.\n[07:31] Ann: I can do it adaeze")  # a word of it, in any case
    assert "adaeze" not in r.text.lower(), r.text


def test_a_list_of_identifiers_stops_at_a_label_of_another_kind(pii):
    r = pii("My MRN is 40918832 and DOB 02/06/1944, summarise my notes.")
    assert r.text == "My MRN is <ID_NUMBER> and DOB <DATE_OF_BIRTH>, summarise my notes.", r.text


@pytest.mark.parametrize("text", [
    "In case 2000 people come, order 1500 chairs.",     # a label word before a quantity, no connector
    "Case 3: the plant made 1500 units in 2019.",
    "Patch CVE-2021-44228 in log4j before Friday.",     # an advisory's id, no label of a person's record
    "PEP-2023-001 and ISO-2019-27001 were adopted; the bank account grew for 12 months.",
    "| Year | Sales | Units |\n|---|---|---|\n| 2021 | 1200 | 300 |\n| 2022 | 1350 | 320 |",  # a table with no ID column
    "policy 2023 says the account grew 12.5% to 3,000", # a year, a share, a count
    "The claim rose in 2019/20 and again on 12/03/2021.",
    "Einstein was born in 1879 in Ulm.",               # a year of birth says no more than an age
    "Compare GPT-4 with an RTX 4090 at 450W.",
    "She has not had custody since 2019; the pine 2020 survey.",  # a label word inside a word ("sin", "pin")
    "there were no 3000/20 cases, No. 100/20 was the ratio",   # a ratio after "no", no application's number
    "Count along: one two three four five six seven eight, clap!",   # digit words with no word of calling
    "A toy maker receives an order for 400 toys; case no 12 and 3000 more.",  # a word, a small number, a list
    "The court heard it in 2021.\nCVE-2021-44228\nwas patched",     # an advisory's id on its own line
    "Price EUR 1200/25 a unit; standard ISO 9001/2015; page 12/20; BP 110/60, VA 20/20",  # no register's numbers
    "mine is 2000 dollars; mine is the red one #12; Item #4471 is in stock",   # no own number, no officer
    "the ticket 2024 was late; e.g. No. 10 Downing Street; No. 12-13 in the list; a flat 5% fee",
    "parking in bay 12 costs 5 EUR; the plate was cracked at 10:30 on 12/05/2024",   # no plate after the word
])
def test_a_record_label_needs_an_identifier(pii, text):
    r = pii(text)
    assert not (r.counts.get("ID_NUMBER") or r.counts.get("DATE_OF_BIRTH")), r.text


@pytest.mark.parametrize("text", [
    "@property\ndef area(self):\n    return self.w * self.h",
    '@app.route("/users/<int:uid>")\ndef user(uid): ...',
    "@Override\npublic String toString() { return name; }",
    "@media (max-width: 600px) { .nav { display: none; } }",
    "npm install @types/node --save-dev",
    "/** Adds two numbers. @param a first @return the sum */",
    "Compute C = A @ B with numpy.",
    "Write to support@example.com if the build fails.",
    "See Issue#1234 and PR#88 for the fix; the colour is #1234.",   # an issue's number, no gamer's tag
    '<div class="nav">\n<span>Home</span>\n</div>',                  # markup, no IRC speakers
    'The account is called "Savings" and the profile says "Admin".',  # quoted words, no handles
    "Edited 2 hours ago\nUpdated 3 days ago\nThe meeting is at 3 PM Sunday.",  # status words over a post, a time
    "It can handle whatever comes along; one way to handle being dumped.",      # "handle" the verb
])
def test_handles_leave_code_and_addresses_alone(pii, text):
    assert "USERNAME" not in pii(text).counts, pii(text).text


def test_the_word_lists_are_read_once():
    # every finder asks for these lists per candidate: read again each time, they cost the filter 2/3 of its speed
    from beam_jobs import pii_words
    for lists in (pii_words.given_names, pii_words.surnames, pii_words.place_names, pii_words.country_names):
        assert lists() is lists(), lists.__name__


def test_the_handles_a_thread_prints_for_its_posts(pii):
    text = ("Posted by quiet_wren_77:\n5 seconds for that?\n\ngunnar4life_89 wrote:\nhonestly no\n\n"
            "    ↳ MaeveK · 1h ago\n    it was never his decision\n\nOlafB_1962 • 3h\nAbsolute disgrace.")
    r = pii(text)
    assert r.counts.get("USERNAME") == 4 and not _leaks(r, "quiet_wren_77", "gunnar4life_89", "MaeveK", "OlafB_1962"), r.text
    for text in ("Reply from Support:\nWe are sorry for the delay.", "Anonymous wrote:\nno", "Total · 3 items"):
        assert "USERNAME" not in pii(text).counts, pii(text).text


def test_the_handles_a_forum_prints_over_a_post_or_beside_a_name(pii):
    # an original poster's and a reply's handle after a dash, a post "by" a handle under "Re:", a "From:" line's
    # handle, and a handle in brackets after the poster's name
    text = ("OP – simran_k_weds:\nPlanning a fusion wedding in the Midlands!\n\nReply – jas.and.rav:\nOur photographer "
            "was great.\n\nRe: by kemi_writes\nThanks, will do.\n\nFrom: lily.tran.2025\nMy family is Cantonese.\n\n"
            "Reply from Lou (mrs_to_be_lou):\nDone!")
    r = pii(text)
    assert not _leaks(r, "simran_k_weds", "jas.and.rav", "kemi_writes", "lily.tran.2025", "mrs_to_be_lou"), r.text
    for text in ("From: Dispatch\nThe truck left at 9.", "Reply – Support:\nWe are sorry.", "Re: by hand\nok",
                 "See the manual (config.yaml): it lists them."):
        assert "USERNAME" not in pii(text).counts, pii(text).text


@pytest.mark.parametrize("form, text, account", [
    pytest.param(form.name, text, account, id=f"{form.name}-{account}")
    for form in __import__("beam_jobs.pii_accounts", fromlist=["ACCOUNT_FORMS"]).ACCOUNT_FORMS
    for text, account in form.examples])
def test_each_account_form_on_its_declared_examples(pii, form, text, account):
    r = pii(text)
    assert account not in r.text, (form, r.text)


@pytest.mark.parametrize("form, text", [
    pytest.param(form.name, text, id=f"{form.name}-{text[:20]}")
    for form in __import__("beam_jobs.pii_accounts", fromlist=["ACCOUNT_FORMS"]).ACCOUNT_FORMS
    for text in form.leaves]
    + [pytest.param("code", "import os\nimport sys\ndef main():\n    anna_list = sys.argv\n    return anna_list", id="code")])
def test_account_forms_leave_code_and_words_alone(pii, form, text):
    assert "USERNAME" not in pii(text).counts, (form, pii(text).text)


def test_where_one_account_is_found_the_others_written_so_are_accounts(pii):
    # one account spelled from a name; the others are handles no list holds, decorated as accounts are
    r = pii("Ladder, Mondays 8pm:\n1. arjun_k_1999 (Arjun) ~1850\n2. babayaga_blitz ~1720\n3. quietqueen77 ~1300\n"
            "4. fenrir_ ~1600")
    assert not _leaks(r, "arjun_k_1999", "babayaga_blitz", "quietqueen77", "fenrir_"), r.text
    # with no account found, the same shapes stay: a table's heading, a car's code, a setting
    text = "week_of     primary\nthe E46 needs P0401 fixed; set max_retries to 5"
    assert pii(text).text == text, pii(text).text


def test_the_logins_made_of_a_found_name(pii):
    # a system's login of a name the text writes elsewhere, in a table or a list; another word stays
    r = pii("| 3 | Peter Mazur | LNG | pmazur2 |\n| 4 | Chidi Okonkwo | Power | c.okonkwo |\n"
            "Access granted for Yusuf Demir (ydemir). Mazur, Peter asks: mazurp ok? Keep the pm slot.")
    assert not _leaks(r, "pmazur2", "c.okonkwo", "ydemir", "mazurp"), r.text
    assert "pm slot" in r.text, r.text


def test_a_forum_poster_over_the_date_of_the_post(pii):
    r = pii("santi.gg   Dec 29, 2023 @ 2:03am\n-rep this account\n\ndesert_rose_77 | Posts: 1,204\nHi all\n\n"
            "  ▲ dang_it_all 3 hours ago | prev | next [–]\n  I went through it")
    assert not _leaks(r, "santi.gg", "desert_rose_77", "dang_it_all"), r.text
    text = "Deadline   Dec 29, 2023\nSubmit the form by then."
    assert pii(text).text == text, pii(text).text


def test_an_underscore_ending_an_account_is_no_markup(pii):
    # "_" emphasises in pairs; one alone at a word's end is the account's own
    r = pii("22:06 < Anna> try the kernel line\n22:07 < lmartinez_> Anna is right\n22:08 < fenrir_> lol")
    assert not _leaks(r, "lmartinez_", "fenrir_", "lmartinez"), r.text
    r = pii("Then _Imran Chaudry_ signed it.")
    assert not _leaks(r, "Imran", "Chaudry") and r.text.startswith("Then _") and r.text.endswith("_ signed it."), r.text


def test_lower_case_given_names_in_cased_chat(pii):
    r = pii("That moment when kaylee has a better phone than you and nobody noticed")
    assert "kaylee" not in r.text, r.text
    # any language's given names, also closing a sentence
    r = pii("Did anyone else notice gaby gave herself more soda? Marcelo is the star of real madrid, not ronaldo.")
    assert not _leaks(r, "gaby", "ronaldo"), r.text
    # a given name that is also an English word, chat's words no dictionary holds, and code, stay
    for text in ("Wow! This looks like a lotta fun!", "Run lana.py on the cluster first."):
        assert pii(text).text == text, pii(text).text
    assert pii("I will rose-tint the photo and label it done.").text == "I will rose-tint the photo and label it done."
    assert "USERNAME" not in pii("df = pd.read_csv('kaylee_scores.csv')").counts


def test_a_lower_case_name_the_model_finds_stays_found_though_the_text_writes_it_so(pii):
    # the model's lower-case PERSON in cased text: a given name of the lists, or a word no dictionary holds ...
    for text, value in (("Thanks obama! Best day ever.", "obama"), ("Is tamina heel or face???", "tamina"),
                        ("She walked him out. Ashok is taking over, good luck ashok.", "ashok"),
                        # a character's given name goes too: recall first (it was kept until a one-word lower-case
                        # PERSON was dropped for being written in lower case, which it always is)
                        ("Who played anna in once upon a time?", "anna")):
        assert value not in pii(text).text.lower(), pii(text).text
    # ... never a dictionary word it misread, nor an inflected word no dictionary lists
    for text in ("The timpani and the panpipes came in late.", "He remixed the track twice.",
                 "The talks were frank.", "UO 30-50cc/hr, clear amber.", "Asking about rehab; case mgmt to follow up."):
        assert pii(text).text == text, pii(text).text


def test_a_lower_case_word_no_dictionary_holds_stands_as_a_name_only_when_shaped_like_one():
    from beam_jobs.pii_names import _lower_person_stands
    for word, stands in (("lebron", True), ("righthererachel", True), ("lalala", False),
                         ("svgttufqjnpdqgswc", False), ("remixed", False), ("mgmt", False)):
        text = f"so {word} said"
        assert _lower_person_stands(text, 3, 3 + len(word), frozenset()) is stands, word


def test_a_name_ends_at_a_table_column_gap_and_goes_on_over_a_wrapped_line(pii):
    table = ("Name                  Group              Attending?\n"
             "Sato, Kenji           Market Risk        Y\n"
             "Hope, Archie          Legal              by phone\n")
    r = pii(table)
    assert not _leaks(r, "Sato", "Kenji", "Hope", "Archie") and "Market Risk" in r.text and "Legal" in r.text, r.text
    r = pii("A - 16,784. Referee - Don Pelletier. Linesmen - Barry Novak, Ron\nAshby.\n")
    assert not _leaks(r, "Ron", "Ashby"), r.text
    r = pii("The constitution gives President Daniel arap\nMoi an advantage, said MP Njoroge wa Kamau.")
    assert not _leaks(r, "Daniel", "Moi", "Njoroge", "Kamau"), r.text
    r = pii("Regards,\nAnna\nMarketing")  # a signature's short lines: the next line is her department
    assert "Marketing" in r.text, r.text


def test_the_rows_of_a_list_or_table_of_people_hold_names_where_most_were_found(pii):
    r = pii("The co-accused were:\n - Dragan Stojiljkovic;\n - Milorad Jovanovic;\n - Zoran Ilic;\n - Nebojsa Tomic.")
    assert not _leaks(r, "Zoran", "Ilic", "Dragan", "Tomic"), r.text
    sheet = ("Counterparty            Old limit   New limit   Analyst\n"
             "Aquila Merchant         $25MM       $15MM       J. Ferreira\n"
             "Black Hills Gen         $5MM        $8MM        Sorensen\n"
             "Westar Energy           $12MM       $10MM       J. Ferreira\n")
    r = pii(sheet)
    assert not _leaks(r, "Ferreira", "Sorensen") and "Analyst" in r.text, r.text
    # a header block parted by tabs is no column of people: its date stays
    r = pii("From:\tHelga Brandt\nSent:\tTuesday, June 06, 2000 3:47 AM\nTo:\tPiet Mol\nCc:\tAnne Vos\n\nOK.")
    assert "Tuesday, June 06" in r.text and not _leaks(r, "Helga", "Piet", "Anne"), r.text


def test_score_lists_of_countries_and_sections_stay(pii):
    for text in ("Final standings: Germany 12, France 9, Italy 7", "See Chapter 3, Section 4 and Table 2",
                 "Germany beat France 2-1 in the final."):
        assert pii(text).text == text
    # a line of results is no street address; a table's headings in capitals and drawn-out chat words no names
    for text in ("Results on Saturday: Arsenal 2 West Ham 0, Coventry 0 Nottingham Forest 3.",
                 "Results (home team in CAPS): Houston 111 DENVER 98, Seattle 103 PHOENIX 95.",
                 "Standings after Thursday's games:\nEASTERN CONFERENCE\nNORTHEAST DIVISION\nHARTFORD 12 7 6 75 73 30",
                 "I LOVE ITTTTTTT", "HOLIDAY ROOOOOOAAAAADDDDD"):
        assert pii(text).text == text, pii(text).text
    for name in ("SUAREZZZZZ", "so nice meeting you and Jonyeee!"):  # a name drawn out stays a name
        assert "<PERSON>" in pii(name).text, pii(name).text
    r = pii("Ship to 221 Baker Street, London NW1 6XE.")
    assert "Baker Street" not in r.text, r.text


def test_headings_and_list_items_stay_a_dash_signature_goes(pii):
    for text in ("Pros:\n- cheap\n- Fast", "Steps:\n- Mix the flour\n- Bake"):
        assert pii(text).text == text, pii(text).text
    assert "Kasimira" not in pii("Sounds good, see you then.\n-Kasimira").text


def test_note_shorthand_is_no_name(pii):
    text = "Neuro: A&O x3, follows commands. Plan: cont to monitor, wean O2 as tol."
    assert pii(text).text == text, pii(text).text
    # a note's labs, specimens and orders opening a sentence, which the name model reads as names
    for text in ("Labs: Na 131, K 5.4, Cr 2.3, Glucose 212. Kayexalate 30g PO given.",
                 "CVP 12-14. Lactate cleared to 1.8.", "Chest PT performed. Sputum sent for culture.",
                 "Assessment: acute on chronic systolic heart failure. Plan: IV diuresis, daily weights."):
        assert pii(text).text == text, pii(text).text
    r = pii("Sputum sent for culture. Daughter Rhonda Kapoor called, updated by Dr. Stavros.")
    assert not _leaks(r, "Rhonda", "Kapoor", "Stavros"), r.text


def test_an_office_run_into_a_name_does_not_spread_as_a_name(pii):
    # the NER reads "Portugal's President Anselma Quillfeather" as one name; the place and the office are no
    # name, so their other mentions stay, while every mention of the name goes
    text = ("Portugal's President Anselma Quillfeather met the press. Portugal has asked for talks, and the "
            "President said Quillfeather would not travel. Portugal expects an answer.")
    r = pii(text)
    assert not _leaks(r, "Anselma", "Quillfeather"), r.text
    assert r.text.count("Portugal") == 3 and "the President said" in r.text, r.text
    r = pii("Essex Police Chief Constable Odran Fessenby said Essex Police would appeal. Essex is calm.")
    assert not _leaks(r, "Odran", "Fessenby") and r.text.endswith("said Essex Police would appeal. Essex is calm."), r.text


def test_a_particle_glued_to_a_surname_stays_in_the_name(pii):
    r = pii("Later, Abu Tariq al-Zubaidawi was arrested in May. Officials said Zubaidawi had led the cell.")
    assert not _leaks(r, "Tariq", "Zubaidawi"), r.text


def test_a_found_name_repeats_in_capitals(pii):
    r = pii("SOCCER - VALDORA STRIKER OKONJO SIGNS FOR RIVERTON .\nStriker Chidi Okonjo has signed a two-year contract .")
    assert not _leaks(r, "OKONJO", "Okonjo", "Chidi") and " STRIKER " in r.text and "SIGNS FOR" in r.text, r.text


def test_a_name_in_a_line_written_in_capitals(pii):
    # a headline has no acronym shape to go by: an unknown word there is a name (the club's name goes too:
    # recall first), dictionary words stay
    r = pii("TENNIS - OKONKWO BEATS LINDQVIST IN STRAIGHT SETS .\nThe match lasted two hours .")
    assert not _leaks(r, "OKONKWO", "LINDQVIST"), r.text
    assert "BEATS" in r.text and "IN STRAIGHT SETS" in r.text and "TENNIS" in r.text, r.text
    # an acronym in a normally written line stays one
    assert pii("The UEFA final is in May.").text == "The UEFA final is in May."
    # a note written in capitals loses its names; its labels, vital signs and drugs stay (its plain words may
    # go with them: a text all in capitals is read again in lower case, recall first, docs/pii.md measures it)
    r = pii("RESP: LS COARSE BILAT, SX FOR THICK TAN SPUTUM. PLAN: DIURESE, WEAN O2.\n"
            "SOCIAL: SON BARTHOLOMEW CALLED. DR OKONKWO AWARE. HR 80S NSR, BP 110/60. LASIX 40 IV GIVEN.")
    assert not _leaks(r, "BARTHOLOMEW", "OKONKWO"), r.text
    for kept in ("RESP:", "PLAN:", "SOCIAL:", "HR 80S NSR, BP 110/60", "LASIX 40 IV GIVEN", "WEAN O2"):
        assert kept in r.text, r.text


def test_a_text_written_all_in_capitals_is_read_again_in_lower_case(pii):
    # in capitals every word looks like a name, or none does: the lower-case reading finds what the NER misses
    r = pii("FAMILY MEETING WITH DR ABERNATHY AND SW KAREN. SON MIKE AND WIFE DOROTHY PRESENT.")
    assert not _leaks(r, "ABERNATHY", "KAREN", "MIKE", "DOROTHY"), r.text
    r = pii("ISRAELI PRIME MINISTER BENJAMIN NETANYAHU MET PALESTINIAN PRESIDENT YASSER ARAFAT ON TUESDAY.")
    assert not _leaks(r, "BENJAMIN", "NETANYAHU", "YASSER", "ARAFAT"), r.text
    text = "PLEASE SEND THE REPORT BY FRIDAY. THE MEETING IS IN ROOM 4 AT NOON."
    assert pii(text).text == text, pii(text).text
    # ... and as prose writes it, so the rules that key on capitals see them: a surname that is a word
    r = pii("THE BOARD MET ON MONDAY. BANKS DISAGREED WITH THE PLAN. WOOD, 28, RESIGNED THE NEXT DAY.")
    assert not _leaks(r, "BANKS", "WOOD"), r.text
    text = "THE PATIENT WILL BE DISCHARGED TOMORROW IF HE REMAINS STABLE. HOPE TO WEAN O2 TONIGHT."
    assert pii(text).text == text, pii(text).text  # "will" and "hope" are given names too: left as words


def test_a_text_printed_token_by_token_is_read_as_prose_too(pii):
    # NER corpora and news-wire feeds print punctuation apart; the rules key on "Anna," and "Wood, 28"
    r = pii("From : Smith , Anna\nTo : Doe , John A.\nSubject : lunch\n\nAnna ,\nWorks for me .\nThanks , John")
    assert not _leaks(r, "Smith", "Anna", "Doe", "John"), r.text
    r = pii("Scorers : Rovers - Gallacher ( 14th minute ) , Sherwood ( 67th ) . Wednesday - Hirst ( 80th ) .")
    assert not _leaks(r, "Gallacher", "Sherwood", "Hirst"), r.text
    r = pii("Wood , 28 , joined the club from Leeds last season .")
    assert not _leaks(r, "Wood"), r.text
    r = pii("Pt is a 78 yo man . PCP is dr . lindqvist . HCP is niece , sophie , who lives out of state .")
    assert not _leaks(r, "lindqvist", "sophie"), r.text
    r = pii("Ship to Dyan van Gijn , 864 Piazzetta Scalette 104\n Apt . 905\n Serradarce\n Italy 75263")
    assert "905" not in r.text, r.text  # the pattern recognizers read the prose copy too
    for text in ("The index rose 2.5 percent , its best day since March .", "Results ( in points ) : 12 , 15 ."):
        assert pii(text).text == text, pii(text).text


def test_mail_wrapped_or_quoted_is_read_as_prose_too(pii):
    # a wrap splits a name from its cue; a reply's "> " hides the signature under the message
    r = pii("She was assisted by her representative, Ms Ana\nPreobrazhenskiy, adviser, and by an interpreter.")
    assert not _leaks(r, "Ana", "Preobrazhenskiy"), r.text
    r = pii("> Jeff,\n> I talked to Sheila and Kevin about the storage\n> contract. Both think we should wait.\n>\n> John")
    assert not _leaks(r, "Jeff", "Sheila", "Kevin", "John"), r.text
    # headlines, datelines, results and list items stay on their lines
    text = ("SOCCER - LEADING RESULTS.\nLONDON 1996-08-24\nResults of English league matches on Saturday:\n"
            "Barnsley 2 Charlton 0\nBolton 3 Norwich 1\nThe following equipment is provided for the site:\n"
            "a. Track - mounted dozers with coal blades;\nb. Pickup trucks;\nc. Mobile cranes.")
    assert pii(text).text == text, pii(text).text


def test_wrapped_and_quoted_copies_keep_or_map_every_place():
    from beam_jobs.pii_wrapped import unquoted_copy, unwrapped_copy
    text = "The applicant was represented by Mr Ivan\nPetrov, a lawyer practising in Kyiv.\n\nThanks,\nAnna"
    joined = unwrapped_copy(text)
    assert len(joined) == len(text) and "Ivan Petrov" in joined and "Thanks,\nAnna" in joined
    assert unwrapped_copy("SOCCER - RESULTS.\nLONDON 1996-08-24") is None
    assert unwrapped_copy("A paragraph of its own, " * 5 + "ends here.\nThe next one starts.") is None  # no wrap
    quoted = "> Sue - agree, let's wait\n> for Paul.\n>\n> --Jeff"
    copy, offsets = unquoted_copy(quoted)
    assert copy == "Sue - agree, let's wait\nfor Paul.\n\n--Jeff"
    assert all(copy[k] == quoted[i] for k, i in enumerate(offsets))
    assert unquoted_copy("x > 3 and y > 4\nso the test fails") is None  # a comparison is no quote


def test_tokenized_text_and_its_prose_copy_map_offsets_both_ways():
    from beam_jobs.pii_plain import to_copy, to_original
    from beam_jobs.pii_tokenized import is_tokenized, prose_copy
    text = 'He said " no " ( twice ) , Smith \'s lawyer did n\'t .'
    assert is_tokenized(text)
    copy, offsets = prose_copy(text)
    assert copy == 'He said "no" (twice), Smith\'s lawyer didn\'t.'
    assert all(copy[k] == text[i] for k, i in enumerate(offsets))
    at = copy.index("Smith")
    assert to_original([(at, at + 5)], offsets) == [(text.index("Smith"), text.index("Smith") + 5)]
    assert to_copy(to_original([(at, at + 12)], offsets), offsets) == [(at, at + 12)]
    for prose in ("Wood, 28, joined the club. He said: \"no\".", "A stray , comma in prose, written, as it was."):
        assert not is_tokenized(prose), prose
    assert prose_copy("nothing to join") is None


def test_a_company_a_news_wire_names_by_its_trade_is_no_person(pii):
    for text in ("Japanese carmaker Toyota said its domestic sales rose 9 percent.",
                 "Italian insurer Generali said premiums rose 9.4 percent.", "Brokerage Nomura said the yen would fall.",
                 "The rating agency Moody's said it had placed the debt on review.",
                 "Airline Lufthansa told Reuters it had no plans to change its fleet."):
        assert pii(text).text == text, pii(text).text
    # a person after such a word, doing what a person does, is still a person; so is one a word part
    for text, name in (("The company Hollis founded in 1990 went public.", "Hollis"),
                       ("Crane operator Jim Bellamy said the load slipped.", "Bellamy"),
                       ("He walked into the bank Okonkwo had robbed.", "Okonkwo")):
        assert name not in pii(text).text, pii(text).text


def test_an_organisations_first_word_alone_is_its_short_form(pii):
    text = "Atletico Madrid confirmed the deal on Friday. Atletico paid 20 million euros, coach Ivo Petrov said."
    r = pii(text)
    assert r.text.count("Atletico") == 2 and not _leaks(r, "Ivo", "Petrov"), r.text
    # ... not where the model reads the word inside a person's full name in the same text
    r = pii("Dexter Morgan joined Morgan Stanley in May. Morgan said he liked it.")
    assert not _leaks(r, "Dexter", "Morgan"), r.text


def test_a_list_without_and_goes_with_its_known_names(pii):
    r = pii("Teams : Kowalski , Brzeczek , Jaroszewicz , Nowakowski .")
    assert not _leaks(r, "Kowalski", "Brzeczek", "Jaroszewicz", "Nowakowski"), r.text
    for text in ("Date,Open,High,Low,Close\n2024-01-02,10,12,9,11",):
        assert pii(text).text == text, pii(text).text


def test_a_word_in_dashes_is_read_without_them(pii):
    text = "See below.\n\n-----Original Message-----\nSent: Monday, October 22, 2001 9:15 AM"
    assert pii(text).text == text, pii(text).text


def test_a_country_in_a_misread_name_does_not_spread(pii):
    from beam_jobs.pii_names import structural_names
    text = "Sanaa, Yemen (AP) Buses left at dawn. Yemen has closed the road, and Yemen's army waits."
    # the NER's misreading, given as a sure name: its country stays everywhere else
    spans = structural_names(text, [], [(0, 12)], frozenset({"yemen", "sanaa"}), [(0, 12)])
    assert not any(text[s:e] == "Yemen" for s, e in spans if s > 12), [text[s:e] for s, e in spans]


def test_a_hyphenated_surname_split_by_the_tokenizer_is_whole(pii):
    r = pii("Barnaby Fitch-Hollis , 34 , was jailed for six years . Fitch-Hollis 's lawyer said he would appeal .")
    assert not _leaks(r, "Fitch", "Hollis", "Barnaby"), r.text
    r = pii("The Court, sitting as a Committee composed of:\nLinos-Alexandre Sicilianos, President,")  # a given name
    assert not _leaks(r, "Linos", "Alexandre", "Sicilianos"), r.text


def test_mothers_day_is_no_kin_name(pii):
    for text in ("Happy Mothers Day to all moms.", "Mother's Day is in May."):
        assert pii(text).text == text, pii(text).text


def test_note_shorthand_and_drugs_before_a_dose_are_no_names(pii):
    text = ("GI: abd soft, NT/ND, +BS. CV: NSR 70-80s, no ectopy. Abd distended. Bilat LE edema. "
            "Lopressor 25mg PO given. Zosyn 4.5 g IV q8h. Fentanyl gtt @ 50mcg/hr. Tylenol PO prn.")
    assert pii(text).text == text, pii(text).text
    r = pii("Lopressor 25mg PO given per Dr. Abd Rahman. Pt's wife Marisol at bedside.")
    assert not _leaks(r, "Rahman", "Marisol") and "Lopressor 25mg" in r.text, r.text
    assert not _leaks(pii("Spoke with Delgado IV team. Marisol im so happy."), "Delgado", "Marisol")


def test_a_wards_drugs_and_services_without_a_dose_are_no_names(pii):
    text = "Vanc trough pending. Levophed weaned off. Seen by Neurosurgery. Ambien at HS. f/u Cards recs."
    assert pii(text).text == text, pii(text).text
    r = pii("Precedex off per Dr. Ostrowski; daughter Ilse called.")
    assert not _leaks(r, "Ostrowski", "Ilse") and "Precedex off" in r.text, r.text


def test_and_others_of_a_case_name_is_no_name(pii):
    r = pii("see Okoro and Others v. Lindqvist, no. 12345/06, § 41, 2010")
    assert "and Others v." in r.text and not _leaks(r, "Okoro", "Lindqvist"), r.text


def test_a_given_name_addressed_without_a_comma(pii):
    r = pii("Rowena I really like your channel, keep going")
    assert "Rowena" not in r.text, r.text
    for text in ("Hope you are well.", "Will you come tomorrow?", "May I ask a question?", "Bless you all"):
        assert pii(text).text == text, pii(text).text


def test_a_name_after_a_demonym_or_former_role_in_an_organisation(pii):
    r = pii("Swedish champion Jonas Lindkvist-Ahl , seeded third , beat Frenchman Thibault Ravoire 6-2 6-4 .")
    assert not _leaks(r, "Thibault", "Ravoire", "Lindkvist"), r.text
    r = pii("The new single by ex-Beatle Okonkwo Ravensdale topped the chart.")
    assert not _leaks(r, "Ravensdale"), r.text
    text = "The threat of Cyclone Phailin was taken seriously."
    assert pii(text).text == text, pii(text).text


def test_a_score_after_a_surname_is_no_version_number(pii):
    r = pii("Second round : Ravoire 6-2 6-4 . Install Ubuntu 22.04 first.")
    assert "Ravoire" not in r.text and "Ubuntu 22.04" in r.text, r.text


def test_a_place_after_near_opening_a_sentence_or_after_municipality_of(pii):
    text = "Syria\n. Near Ayn Qaslan, one strike engaged an ISIL unit.\n. Near Dayr Mukhtar, two strikes hit a bridge."
    assert pii(text).text == text, pii(text).text
    assert "Quennell" not in pii("She sat near Orlaith Quennell at dinner.").text


def test_where_somebody_lives_or_works_is_no_name_and_the_person_still_goes(pii):
    text = ("The applicant, Mrs Ilinca Vărzaru, was born in 1964 and lives in Chişinău. She was represented by "
            "Mr T. Bălănescu, a lawyer practising in Braga, and later by a firm based in Porto.")
    r = pii(text)
    assert all(place in r.text for place in ("Chişinău", "Braga", "Porto")), r.text
    assert not _leaks(r, "Ilinca", "Vărzaru", "Bălănescu"), r.text


def test_a_place_after_in_is_no_name_unless_cited_owned_or_paired(pii):
    text = "Floods in Garissa closed the road, and a plant in Sutton Coldfield shut for a week."
    assert pii(text).text == text, pii(text).text
    for text, name in (("Nothing changed in Okonkwo's mind after the visit.", "Okonkwo"),
                       ("The ratio laid down in Tamsin Achterberg (supra) applies.", "Achterberg"),
                       ("as set out in Vuković and Lindqvist, the claim fails", "Vuković"),
                       ("I saw a change in Chelsea when she started running.", "Chelsea")):
        assert name not in pii(text).text, pii(text).text


def test_a_list_of_places_after_in_and_a_place_fought_over_are_no_names(pii):
    text = "The strikes in Qarmesh, Tellaruk and Ubbadin were condemned after the liberation of Kharzan."
    assert pii(text).text == text, pii(text).text
    for text, name in (("I met friends in Maribel, Tomasz and Jovana at the fair.", "Tomasz"),
                       ("As held in Okafor, Lindqvist and Moran, the claim fails.", "Lindqvist")):
        assert name not in pii(text).text, pii(text).text


def test_the_short_forms_english_speakers_go_by(pii):
    r = pii("Can you resend the curve file?\n\nThanks,\nRob")
    assert "Rob" not in r.text, r.text
    r = pii("Per the desk, the numbers go to trish and doug by Friday. Call Marguerite Okafor first.")
    assert not _leaks(r, "trish", "doug"), r.text
    text = "The caucus in Des Moines was delayed. Will you rob the bank? I nicked a chip."
    assert pii(text).text == text, pii(text).text


def test_a_relatives_name_given_in_a_note_and_a_batting_average_list(pii):
    r = pii("Pt's wife visiting. Wife's name is Dolores, can be reached at home.")
    assert "Dolores" not in r.text, r.text
    r = pii("Batting leaders: Okonkwo .367, Burks .350, Lindqvist .342, Haverford .331")
    assert not _leaks(r, "Okonkwo", "Burks", "Lindqvist", "Haverford"), r.text


def test_what_a_text_says_is_a_place_a_body_a_work_or_a_storm_is_no_name_wherever_it_repeats(pii):
    text = ("Quarrowby is a village and civil parish in the north of the county.\nThe hamlet of Tennerleigh lies "
            "two miles north of Brackwell. Quarrowby church dates from 1120.\n\nVelvetgrub are an English "
            "garage rock / punk band from Derby. Over the years Velvetgrub toured widely.\n\nIn her memory he wrote "
            "Ellowenne, a cycle of elegies, and the best stop in town is Drummond's which is a bookstore. "
            "Ostravel (Greek: Οστράβελ), is the capital city of the region.\n\nCyclone Taruvei has winds of 200 "
            "km/h today. Taruvei's winds will weaken inland, said forecaster Dana Whitlow.\n\nTheir album \"Quillon "
            "Reach\" charted, and the novel Ashgrove Tallis (1911) sold out.\n\nIn 1926 the town of Pellowby bought "
            "the line. Pellowby began a long effort to keep it.")
    r = pii(text)
    for word in ("Quarrowby", "Tennerleigh", "Brackwell", "Velvetgrub", "Ellowenne", "Drummond", "Ostravel",
                 "Οστράβελ", "Taruvei's", "Quillon Reach", "Ashgrove Tallis", "Pellowby began"):
        assert word in r.text, (word, r.text)
    assert "Whitlow" not in r.text, r.text
    # a person's attribute, a band's member, a greeting: the person stays found
    for text, name in (("Tobiah Quennell is a village doctor in Kent.", "Quennell"),
                       ("We met Orlaith Dunleavy, the band's drummer, at noon.", "Dunleavy"),
                       ("Marguerite Okafor is a member of the band.", "Okafor"),
                       ("Dear Siobhan, the band and I will be late.", "Siobhan"),
                       ("In the film Ruairi Dempsey plays a lawyer.", "Dempsey"),
                       ("Now Tante Roswitha is texting everyone. Tante Roswitha is a whole genre of aunt.", "Roswitha")):
        assert name not in pii(text).text, pii(text).text


def test_initials_of_names_in_any_alphabet_with_inner_capitals_and_a_greeting_in_lower_case(pii):
    text = ("PRESENT:\n  Wiesław Nowicki     Groundworks foreman     (WN)\n  Seán O'Rourke   M&E coordinator   (SOR)\n"
            "  Priya Venkataraman  Client's QS (Hartwell)    (PV)\n  Sarah-Jane Mills   minutes\n\n"
            "1. WN to chase the supplier. SOR still waiting. PV advised the client. SJM to circulate.")
    r = pii(text)
    assert not _leaks(r, "WN", "SOR", "PV", "SJM"), r.text
    r = pii("The Crown relies on Ms. Odile Crane, his former partner. Det. Hunter noted in his memo book \"OC – "
            "credibility? motive.\"")
    assert not _leaks(r, "OC"), r.text
    r = pii("tobiasdk: yo fern whats up\nmarta: happy bday grace!!")
    assert not _leaks(r, "fern", "grace"), r.text


def test_a_dish_a_recipe_is_for_and_a_result_of_science_named_after_its_finder_are_no_names(pii):
    text = ("Can you give me a recipe for Brindavoc? And a recipe Kestovan Pirrag? I know the Halvorsen equation, "
            "the Quennick conjecture and Marrowby's theorem.")
    assert pii(text).text == text, pii(text).text
    for text, name in (("I want the recipe for Nana Ekwueme's stew.", "Ekwueme"),
                       ("Anna's hypothesis is that it will rain.", "Anna"),
                       ("Ravi Okonkwo's algorithm won the prize.", "Okonkwo"),
                       ("Mr Okafor's disease progressed overnight.", "Okafor")):
        assert name not in pii(text).text, pii(text).text


def test_a_team_by_its_place_and_nickname_and_a_town_with_its_state_are_no_names(pii):
    text = ("He played eight seasons for the Hartford Wolves and Denver Foxes, then coached the Toronto Badgers. "
            "The Foxes folded in 1950. We stayed a night in Eugene, Oregon, then flew from Springvale, Queensland.")
    assert pii(text).text == text, pii(text).text
    # a given name or a surname of the lists on either side, a possessive without its apostrophe, a person's name
    # before a state and a word: names
    for text, name in (("Damn Athenas daughter is so rude", "Athenas"),
                       ("Lunch with Chelsea Stones and Brown Rivers tomorrow", "Stones"),
                       ("A letter came from Edwina Okafor, Texas office.", "Okafor"),
                       ("The estate of Smith, Virginia Mae passes to her son.", "Virginia")):
        assert name not in pii(text).text, pii(text).text


def test_where_somebody_goes_and_a_place_or_body_named_after_a_word(pii):
    text = ("Residents of Raqqah fled to Dordrecht. The state of Punjab and the Wayne County board met. "
            "Moti Ram R/o Sahaspuriya appeared.")
    r = pii(text)
    assert all(p in r.text for p in ("Raqqah", "Dordrecht", "Punjab", "Wayne County", "Sahaspuriya")), r.text
    assert "Moti" not in r.text, r.text


def test_a_place_or_school_named_after_somebody_is_no_name(pii):
    text = ("The line crossed Tolliver Brook and stopped at Quarrington Siding. He attended Ashcombe High School "
            "and later Pemberly Academy, near Dunmore Pond. Ravi Okafor drove.")
    r = pii(text)
    assert all(p in r.text for p in ("Tolliver Brook", "Quarrington Siding", "Ashcombe High School",
                                     "Pemberly Academy", "Dunmore Pond")), r.text
    assert "Okafor" not in r.text, r.text
    r = pii("I spoke with Rich and Joe Brook this morning. Brook thinks the deal is dead.")  # a person's surname
    assert not _leaks(r, "Joe", "Brook"), r.text


def test_a_surname_that_is_a_word_told_of_by_who_or_in_a_players_result(pii):
    r = pii("Wood, who scored twice, said the side had been lucky. Germany, who lost, went home.")
    assert not _leaks(r, "Wood") and "Germany" in r.text, r.text
    r = pii("Second round: Mills beat Shore 6-1 6-4; Brandvold beat Stone 7-6 (7-4) 6-2")
    assert not _leaks(r, "Mills", "Shore", "Brandvold", "Stone"), r.text
    for text in ("Snap, who is that lady at the door?", "Germany beat France 2-1 in the final."):
        assert pii(text).text == text, pii(text).text


def test_whose_home_it_is_names_a_person_even_after_a_sentences_first_word(pii):
    r = pii("At Harrow's cottage we stayed a week. Police searched Dorn's flat. Then Ivo's wife called.")
    assert not _leaks(r, "Harrow", "Dorn", "Ivo"), r.text
    text = "Google's home assistant; the Prime Minister's house; Britain's home secretary"
    assert pii(text).text == text, pii(text).text


def test_a_given_name_and_a_word_surname_found_by_a_rule_spread_the_surname(pii):
    r = pii("Police said the driver, Carl Hope, 41, had been arrested. Hope's lawyer declined to comment.")
    assert not _leaks(r, "Carl", "Hope"), r.text
    r = pii("Police said the driver, Milo Hope, 41, had been arrested; his wife, Ada Lamb, 38, was unhurt.")
    assert not _leaks(r, "Milo", "Hope", "Ada", "Lamb"), r.text
    text = "She planted the Rose Garden in May. The garden is open daily."
    assert "garden is open" in pii(text).text, pii(text).text


def test_words_in_capitals_are_no_name_unless_one_is(pii):
    for text in ("I haven't seen u in months... SEND A PIC!", "CAN I SPEAK TO A REAL PERSON?!?!",
                 "I need all the money & hours I can get before I head back to school!"):  # "Hours I Can" no name
        assert pii(text).text == text, pii(text).text
    r = pii("met DOLORES at the gate; she had seen RAVIL G YEFIMOV there")  # "Dolores" is no plural of "dolor"
    assert not _leaks(r, "DOLORES", "RAVIL", "YEFIMOV"), r.text


def test_a_nursing_note_without_personal_data_is_left_as_it_is(pii):
    text = ("Resp: LS coarse bilat. Sx for thick yellow sputum. RR 20s. O2 sat 95% on 4L NC.\n"
            "CV: HR 80s NSR. BP 110/60. +PP.\nGU: Foley patent, draining clear yellow urine.\n"
            "Neuro: A+Ox3, PERRL. ID: Tmax 101.2, blood cx sent.\nSkin: Coccyx stage II, Duoderm applied.\n"
            "Plan: Cont current plan of care. Monitor resp status.")
    assert pii(text).text == text, pii(text).text
    text = "Hemodynamics: Swan-Ganz placed in cath lab: CO 4.2, CI 2.3. Family called, updated by RN. Plan to meet."
    assert pii(text).text == text, pii(text).text
    text = "Sats 92% on 4L NC, called RT. Plan to wean again tonight."  # a care title ends a sentence
    assert pii(text).text == text, pii(text).text
    r = pii("The 16 Fr Foley was placed by Dr. Okafor.")
    assert "Foley" in r.text and "Okafor" not in r.text, r.text  # the device stays, the person goes
    assert "Foley" not in pii("Foley said it hurt when she got up.").text  # a surname where a person stands


def test_a_notes_pressure_range_and_words_no_name_ends_with_are_left(pii):
    text = ("CV: NSR 70-80s, no ectopy. BP 110-130/60s. K 3.8.\nA: Hemodynamically stable, weaning O2. "
            "Cholecystitis suspected, surgery to see.")
    assert pii(text).text == text, pii(text).text
    r = pii("Hemodynamically stable. Seen by Dr Ingrid Mosley; Zsofia Kowalczyk updated.")
    assert not _leaks(r, "Mosley", "Zsofia", "Kowalczyk"), r.text


def test_a_standings_table_row_is_no_phone_number(pii):
    text = "NFL AMERICAN FOOTBALL - STANDINGS.\nNEW ORLEANS 3 10 0 175 301\nCAROLINA 10 3 0 301 186"
    assert "PHONE" not in pii(text).text, pii(text).text
    assert "PHONE_NUMBER" in pii("Call 1 800 555 0199 or 020 7946 0958 today.").text


def test_teams_of_a_result_line_and_countries_that_speak_are_no_names(pii):
    text = "Results of English league matches on Saturday:\nBarnsley 2 Charlton 0\nBolton 3 Norwich 1\n" \
           "China said on Monday it would send a delegation."
    assert pii(text).text == text, pii(text).text
    r = pii("Bayern Munich 2 ( Okonjo 10 , Wrzesniewski 67 ) Hamburg 1 ( Lindqvist 55 )\nJordan said he would play.")
    assert not _leaks(r, "Okonjo", "Wrzesniewski", "Lindqvist", "Jordan") and "Hamburg" in r.text, r.text


def test_a_judgments_numbered_headings_are_no_names(pii):
    text = "A. Damage\n\n40. The applicant claimed 10,000 euros.\n\nB. Costs and expenses\n\nC. Default interest"
    assert pii(text).text == text, pii(text).text


def test_a_bowling_analysis_and_a_leaders_list(pii):
    r = pii("Bowling: Mullally 22-8-48-2, Cork 25-3-82-1, Okonkwo 30-9-61-3, Salisbury 10-1-44-0")
    assert not _leaks(r, "Mullally", "Cork", "Okonkwo", "Salisbury"), r.text
    r = pii("Leading goalscorers: 7 - Okonkwo (Riverton); 6 - Fowler (Liverpool), Lindqvist (Aston Villa)")
    assert not _leaks(r, "Okonkwo", "Fowler", "Lindqvist"), r.text


def test_a_surname_that_is_a_word_where_news_puts_a_person(pii):
    r = pii("Wood, 28, joined the club from Leeds. The Spaniard beat Black 6-2 6-4. He was caught by Long for 12.")
    assert not _leaks(r, "Wood", "Black", "Long") and "Leeds" in r.text, r.text
    text = "Girl, 15, found safe after two days. Sections A, 3, and B apply."
    assert pii(text).text == text, pii(text).text


def test_a_list_with_a_place_does_not_spread_a_misread_name(pii):
    # (the shipped model reads "Sussex" there as a person itself: docs/pii.md's known over-redactions)
    r = pii("Flood warnings are in place for Surrey, Hampshire and Tremayne-on-Sea.")
    assert "Surrey" in r.text and "Hampshire" in r.text, r.text
    r = pii("I met Okonkwo, Lindqvist and Brennan at the gate.")
    assert not _leaks(r, "Okonkwo", "Lindqvist", "Brennan"), r.text


def test_a_news_wire_dateline_is_no_name(pii):
    for text in ("CYCLING - LEADING STAGE RESULTS.\nSTUTTGART 1996-08-24\nResults of the fourth stage on Saturday.",
                 "TENNIS - RESULTS AT HAMLET CUP.\nCOMMACK, New York 1996-08-22\nResults from the tournament on Thursday:",
                 "GRENOBLE, Aug 24 (Reuters) - Floods closed two roads on Saturday."):
        assert pii(text).text == text, pii(text).text
    r = pii("STUTTGART 1996-08-24\nThe stage went to Tadeusz Wrzesniewski of Poland.")
    assert "STUTTGART" in r.text and not _leaks(r, "Tadeusz", "Wrzesniewski"), r.text


def test_a_dictionary_surname_in_a_team_line_up(pii):
    r = pii("RUGBY LEAGUE - TEAMS.\nWigan: Prescott; Kowalczyk, Haigh, Oduya, Brennan; Lindqvist, Goulding")
    assert not _leaks(r, "Prescott", "Kowalczyk", "Haigh", "Oduya", "Lindqvist"), r.text


def test_a_plural_noun_is_no_name_but_a_plural_surname_is(pii):
    text = "Who stood up for the values our Founders charged us to keep? Jobs for Jordanians came first."
    assert pii(text).text == text, pii(text).text
    r = pii("Mr Banks said the deal was done. Damn Rowenas daughter is tall")
    assert not _leaks(r, "Banks", "Rowenas"), r.text


def test_a_list_of_common_words_the_ner_ran_together_is_no_list_of_names(pii):
    text = ("How may the writer sound? These tones include Disheartening, Accusatory, Worried, Curious, Formal, "
            "Assertive, Confident, Concerned, Sad, Informal, Joyful, and Excited.")
    assert pii(text).text == text, pii(text).text
    r = pii("The squad: Okonjo, Lindqvist, Haverford, and Brennan.")  # a list of names still spreads
    assert not _leaks(r, "Okonjo", "Lindqvist", "Haverford", "Brennan"), r.text


def test_contract_roles_acronym_plurals_and_report_abbreviations_are_no_names(pii):
    text = "The Pledgor further agrees that the notice period applies. Reservation rose to 44% for OBCs. See 2007 Cri.L.J. 583."
    assert pii(text).text == text, pii(text).text
    text = "If Borrower violates any covenant in Section 7, Lender may declare all Obligations due."
    assert pii(text).text == text, pii(text).text


def test_a_place_the_ner_found_and_faker_lists_is_no_name(pii):
    text = "He was a citizen of San Francisco for decades. In The High Court Of Punjab And Haryana At Chandigarh."
    r = pii(text)
    assert "San Francisco" in r.text and "Haryana" in r.text, r.text
    assert "Quennell" not in pii("Orlaith Quennell moved to San Francisco.").text


def test_brands_and_sites_are_no_names_even_when_the_model_says_so(pii):
    text = "I put the notes on the wiki. Nikkei average rose 120 points and Sony gained 30 yen."
    assert pii(text).text == text, pii(text).text


def test_a_title_glued_to_a_word_and_numerals_in_a_list_are_no_names(pii):
    text = "Mary buys 3 bags of M&Ms. The first bag has 300 M&Ms in it."
    assert "The first bag" in pii(text).text, pii(text).text
    r = pii("Two, Blount and Dayton, were in debt.")
    assert r.text.startswith("Two,") and not _leaks(r, "Blount", "Dayton"), r.text


def test_a_name_after_an_imperative_the_ner_ran_into_an_organisation(pii):
    # found by trying the clean stage by hand: the NER read "Call Anselma Quillfeather" as one ORG
    r = pii("Call Anselma Quillfeather at 617-555-0199 about the deal.")
    assert not _leaks(r, "Anselma", "Quillfeather", "617-555-0199"), r.text


# --- the model's second member (beam_jobs.pii.second_opinion) -------------------------------------------

def _two_members(first: list[dict], second: list[dict]):
    """A pipeline standing in for the shipped model: entity rulers in place of the two trained NERs, the
    second under the member's name and disabled, as bench/name_model_recipe.py saves it."""
    import spacy
    from beam_jobs.pii import SECOND_NER
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler", name="ner").add_patterns(first)
    nlp.add_pipe("entity_ruler", name=SECOND_NER).add_patterns(second)
    nlp.disable_pipe(SECOND_NER)
    return nlp


def test_second_member_adds_the_names_the_first_missed():
    from beam_jobs.pii import second_opinion
    nlp = _two_members(
        [{"label": "PERSON", "pattern": "Anna Berg"}, {"label": "ORG", "pattern": "Lindqvist Holm"},
         {"label": "GPE", "pattern": "Oslo"}],
        [{"label": "PERSON", "pattern": "Lindqvist Holm"}, {"label": "PERSON", "pattern": "Okonkwo"},
         {"label": "PERSON", "pattern": "Anna"}, {"label": "ORG", "pattern": "Oslo"}])
    docs = list(nlp.pipe(["Anna Berg met Lindqvist Holm and Okonkwo in Oslo."]))
    assert [(e.text, e.label_) for e in docs[0].ents] == [("Anna Berg", "PERSON"), ("Lindqvist Holm", "ORG"),
                                                          ("Oslo", "GPE")]  # the member did not run
    second_opinion(nlp, docs)
    # a person of the member's wins over the first's organisation; a new one is added; the first's person
    # and its place stay (the member's "Anna" inside "Anna Berg", its organisation, are not taken)
    assert [(e.text, e.label_) for e in docs[0].ents] == [("Anna Berg", "PERSON"), ("Lindqvist Holm", "PERSON"),
                                                          ("Okonkwo", "PERSON"), ("Oslo", "GPE")]


def test_a_model_without_a_second_member_is_left_as_it_is():
    import spacy
    from beam_jobs.pii import second_opinion
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler", name="ner").add_patterns([{"label": "PERSON", "pattern": "Anna"}])
    docs = list(nlp.pipe(["Anna met Okonkwo."]))
    second_opinion(nlp, docs)
    assert [e.text for e in docs[0].ents] == ["Anna"]


def test_the_third_member_adds_names_only_where_a_name_could_stand():
    import spacy
    from beam_jobs.pii import NAMES_MODEL, SECOND_NER, SPACY_NER, second_opinion
    # the shipped folder's lemmatizer (its dictionary tells a common word), rulers in place of the members
    nlp = spacy.load(NAMES_MODEL, exclude=["ner", SECOND_NER, SPACY_NER])
    nlp.add_pipe("entity_ruler", name="ner").add_patterns([{"label": "PERSON", "pattern": "Anna"}])
    nlp.add_pipe("entity_ruler", name=SPACY_NER).add_patterns(
        [{"label": "PERSON", "pattern": p} for p in ("Krasznahorkai", "Giveaway", "jaysus", "Lee Sang-hoon", "ana")])
    nlp.disable_pipe(SPACY_NER)
    texts = ["Anna read Krasznahorkai. Giveaway today, jaysus! Lee Sang-hoon and ana came."]
    docs = list(nlp.pipe(texts + [texts[0].upper(), texts[0]]))
    second_opinion(nlp, docs, as_written=[True, True, False])
    # a capitalised word no dictionary holds, a hyphened given name, a lower-case word of the name lists are
    # taken; a dictionary word and chat's lower-case slang are not
    assert [e.text for e in docs[0].ents] == ["Anna", "Krasznahorkai", "Lee Sang-hoon", "ana"]
    # a copy whose case the filter changed is not read by this member
    assert [e.text for e in docs[2].ents] == ["Anna"]


def test_the_third_members_words_of_names():
    import spacy
    from beam_jobs.pii import NAMES_MODEL, _words_of_names
    from beam_jobs.pii_names import english_vocabulary
    nlp = spacy.blank("en")
    vocabulary = english_vocabulary(spacy.load(NAMES_MODEL))
    def words(text, before="met"):  # the span after `before`
        doc = nlp(f"{before} {text}")
        return _words_of_names(doc[len(nlp(before)):], vocabulary)
    for name in ("Krasznahorkai", "Sang-hoon", "c. abernathy-nguyen", "SANTIAGO", "HJ", "Wei", "Li Na", "Diljit"):
        assert words(name), name
    for thing in ("Giveaway", "Power Rangers", "jaysus", "ya mate", "ed", "STFU", "t.co/x", "Great Work", "3"):
        assert not words(thing), thing
    # a short dictionary word is too short to tell, but not where it opens a sentence
    assert not words("Map", "info.") and not words("Mm", "") and words("Raj", "Tom,")


def test_names_only_the_third_member_finds(pii):
    # spaCy's own NER finds these where both fine-tuned members and the rules missed them
    r = pii("[09:12] Tomek: who has the keys?\n[09:14] Basia: thanks so much Aga you're a star, see you at 6")
    assert not _leaks(r, "Aga"), r.text
    r = pii("Neighbour: Someone tried the door again last night\nMarek: Oh no Zbyszek! Are you ok?")
    assert not _leaks(r, "Zbyszek"), r.text
    r = pii("Decision of the district judge (SSR Halina Kot) of 14.02.2015 upheld.")
    assert not _leaks(r, "Halina", "Kot"), r.text
    r = pii("71 Tomas Berg, Kenji Sato (Japan), Chip Lane")
    assert not _leaks(r, "Chip", "Lane"), r.text


def test_the_shipped_model_has_its_second_member_disabled():
    import spacy
    from beam_jobs.pii import NAMES_MODEL, SECOND_NER
    from beam_jobs.pii import SPACY_NER
    nlp = spacy.load(NAMES_MODEL)
    assert SECOND_NER in nlp.component_names and SECOND_NER in nlp.disabled
    assert nlp.get_pipe(SECOND_NER).labels == nlp.get_pipe("ner").labels
    # the third member is en_core_web_md's NER as spaCy ships it: its eighteen OntoNotes labels
    assert SPACY_NER in nlp.component_names and SPACY_NER in nlp.disabled
    assert "PERSON" in nlp.get_pipe(SPACY_NER).labels and len(nlp.get_pipe(SPACY_NER).labels) == 18


def test_a_given_name_that_is_a_word_capitalised_inside_a_sentence(pii):
    # "Grant", "Hope" and "Price" are dictionary words; inside a sentence the capital makes them names
    r = pii("Per my conversation with Grant, we will move the closing to Friday.")
    assert not _leaks(r, "Grant"), r.text
    r = pii("Spoke with pt's wife Hope re: code status. Brother Frank and sister Faith visited.")
    assert not _leaks(r, "Hope", "Frank", "Faith"), r.text
    r = pii("The witness said she had seen the accused leave the premises with Green.")  # a surname where a person stands
    assert not _leaks(r, "Green"), r.text
    r = pii("Please route all curve questions to Carter or Price.")      # the partner of a found name
    assert not _leaks(r, "Carter", "Price"), r.text
    r = pii("Obs stable. Hoisted back to bed by Kasia + Radoslaw per protocol.")  # a ward log's "+"
    assert not _leaks(r, "Kasia", "Radoslaw"), r.text
    r = pii("FYI - Hunter will be out next week.")                      # the NER ran a mail acronym into the name
    assert not _leaks(r, "Hunter") and "FYI" in r.text, r.text
    r = pii("Could you send the ISDA for Cargill? Per Carol's note, we need it by Fri.")  # the NER's one-word ORG
    assert not _leaks(r, "Carol"), r.text
    # a run of capitals, a month, a place, a sentence's first word, an eponym before its noun stay
    for text in ("Apply for a Research Grant before May.", "We drove to Georgia in June.", "Hope you are well.",
                 "Draw the Lewis structure for water.", "Is Green a colour or a party?", "He was born in Hill Valley.",
                 "Women's 100 metres: the final is on Sunday.", "Wolves of the north lost ground."):
        assert pii(text).text == text, pii(text).text


def test_a_sports_report_names_substitutes_jockeys_and_staff(pii):
    # a line-up's substitute in brackets with the minute; a racecard's jockey / trainer pair, one side found; a name
    # after a role in another language that the model ran into an organisation
    r = pii("Line-ups:\nUtrecht: Smits; Bakker, Oosterhuis; Tiemens (Rose 78), Mulder; Lane (Hunter 65).")
    assert not _leaks(r, "Rose", "Hunter"), r.text
    r = pii("RACE 3:  SILVER ARROW  (E. LACROIX / D. HILL)  61.00")
    assert not _leaks(r, "LACROIX", "HILL"), r.text
    r = pii('"He is the fastest man in the world over the last 200 metres," said his directeur sportif Walter Verbeke.')
    assert not _leaks(r, "Walter", "Verbeke"), r.text
    for text in ("Prices (Paris / London) rose.", "Answer (Yes / No) below."):
        assert pii(text).text == text, pii(text).text


def test_a_quoted_message_signed_with_one_letter(pii):
    # the last message of a thread quotes the one before, which its writer signed with a letter and a dot
    r = pii("Will do, booking the room now.\n\nMarta\n\n-----Original Message-----\nFrom: Quigley, Fergus\nSent: 02 "
            "June 2004 09:12\nTo: Lis, Marta\nSubject: RE: offsite\n\n> Can you sort the room for Thursday? Ask "
            "facilities\n> for the big screen, and order lunch for twelve.\n> F.")
    assert not _leaks(r, "> F.", "Marta", "Fergus"), r.text


def test_a_name_addressed_at_a_quotes_end_and_a_table_cell_with_title_and_age(pii):
    r = pii('Afterwards he told me "it\'s all team effort, Rosa" (yes he uses my name).')
    assert not _leaks(r, "Rosa"), r.text
    r = pii("| Bed | Patient | Notes |\n| 4 | Miss QUILL, Amelia (23) | asthma, improving |")
    assert not _leaks(r, "QUILL", "Amelia"), r.text
    text = 'He wrote "flights to Lisbon, Madrid" on the board.'  # a list of places in quotes stays
    assert pii(text).text == text, pii(text).text


def test_a_nickname_known_on_tour_or_identified_only_as(pii):
    r = pii('Ruiz, known on tour as "El Toro", bogeyed the last.')
    assert not _leaks(r, "El Toro"), r.text
    r = pii('He said a fourth suspect, identified only as "Scorpion", was still at large.')
    assert not _leaks(r, "Scorpion"), r.text


def test_a_chat_s_speakers_and_a_crew_pair(pii):
    # a group chat's speakers after an emoji, two words, over lines of any kind; a crew's pair in brackets
    r = pii("Year 3 Parents (Private group)\n\n  💬 Nadia Haddad: It's still on! Packed lunch, no nuts pls\n  💬 Dee "
            "O'Quill: thank you x\n  💬 Tomás Ruiz: Also they need to be in by 8:15 not 8:45")
    assert not _leaks(r, "Nadia", "O'Quill", "Tomás"), r.text
    r = pii("Pt 2: front passenger - conveyed separately by DEL12 (crew Okafor / Baker).")
    assert not _leaks(r, "Okafor", "Baker"), r.text
    text = "Recipe\nIngredients: flour, sugar and two eggs\nMethod: mix it all then bake\nServes: four hungry people"
    assert pii(text).text == text, pii(text).text


def test_a_label_that_opens_lines_before_a_number_is_no_name(pii):
    # the model reads a route's or a list's label as a person; two lines or more of "Label N:" make it a label
    text = "Waymark 1: granite arch over the brook.\nWaymark 2.5: the old junction station."
    assert pii(text).text == text, pii(text).text
    r = pii("Day 1: Okafor arrived at 12:30. Day 2: Lindqvist left.")  # the names after such labels still go
    assert not _leaks(r, "Okafor", "Lindqvist"), r.text
    text = "Class descriptions benefit Penn State two-fold, as Ohio State found."  # a university, no person
    assert pii(text).text == text, pii(text).text


def test_a_double_given_name_a_note_s_letters_spell(pii):
    # "Mae" is also a note's "MAE" (moves all extremities); written as a given name it is one
    r = pii("We met Lucy-Mae at the park.")
    assert not _leaks(r, "Lucy-Mae"), r.text
    r = pii("SAU | 6 | Lily-Mae Quarrie (19) | appendicectomy list tmrw |")
    assert not _leaks(r, "Lily-Mae", "Quarrie"), r.text
    text = "Pt alert, MAE, abd soft. Bilat LE edema."
    assert pii(text).text == text, pii(text).text


def test_a_care_role_alone_is_no_name(pii):
    # the model reads a shift's label as a person ("(Carer: ...)"); the role alone stays, the name after it goes
    r = pii("MORNING (Carer: Mercy)\nWoke at 7.10. Physio: mobilised with frame.")
    assert not _leaks(r, "Mercy") and "Carer" in r.text and "Physio" in r.text, r.text


def test_a_kin_role_names_a_given_name_that_is_a_word_in_lower_case_text(pii):
    r = pii("neuro: a&ox3. pt's sister faith called, updated by rn. daughter (summer) to visit at 1400.")
    assert not _leaks(r, "faith", "summer"), r.text
    r = pii("from: smith, anna\nto: doe, john a.\nsubject: lunch\n\nworks for me.")  # a header's "last, first"
    assert not _leaks(r, "smith", "anna", "doe", "john"), r.text
    text = "the patient is stable and his wife may call tonight."  # a modal verb, though May is a name
    assert pii(text).text == text, pii(text).text


def test_a_short_message_and_a_scoreboard_in_capitals(pii):
    r = pii("ANNA,\n\nSEE ATTACHED.\n\nTHANKS,\nJOHN")
    assert not _leaks(r, "ANNA", "JOHN"), r.text
    r = pii("FROM: SMITH, ANNA\nTO: DOE, JOHN A.\nSUBJECT: LUNCH\n\nWORKS FOR ME.")
    assert not _leaks(r, "SMITH", "ANNA", "DOE", "JOHN"), r.text
    r = pii("CRICKET - SHEFFIELD SHIELD SCOREBOARD.\nM. HUSSEY C GILCHRIST B MCGRATH 34\nT. MOODY NOT OUT 56")
    assert not _leaks(r, "HUSSEY", "GILCHRIST", "MCGRATH", "MOODY"), r.text
    for text in ("Please see note B and section C below for 12 items.", "The answer is C 12"):
        assert pii(text).text == text, pii(text).text


def test_older_given_names_of_the_census_and_storms(pii):
    # the names of older people, whom notes name most, are in the census list (Faker's lists lack them)
    r = pii("PT ADMITTED WITH SOB. WIFE PEARL AT BEDSIDE, UPDATED. SON CLYDE TO VISIT.")
    assert not _leaks(r, "PEARL", "CLYDE"), r.text
    for text in ("What was the lowest pressure of hurricane irma?", "Cyclone Phailin hit Odisha in 2013."):
        assert pii(text).text == text, pii(text).text  # a storm's name is nobody's


def test_the_worlds_common_names_in_latin_letters(pii):
    # names whose Faker list is in another script (Russian, Ukrainian, Georgian), in lower case as chat writes them
    for text, name in (("lol maksym u coming?", "maksym"), ("omg artyom stop", "artyom"), ("haha dmytro same", "dmytro")):
        r = pii(text)
        assert not _leaks(r, name), r.text


def test_hindi_given_names_romanized(pii):
    # Faker's Hindi names are in Devanagari only: romanized, the names every rule keyed on a given name needs
    for text, name in (("lol pradeep u coming?", "pradeep"), ("me n rakesh r going", "rakesh")):
        r = pii(text)
        assert not _leaks(r, name), r.text


def test_the_census_list_is_read_from_the_package():
    from beam_jobs.pii_words import CENSUS_GIVEN_NAMES, census_given_names
    names = census_given_names()
    assert CENSUS_GIVEN_NAMES.exists() and {"Pearl", "Myrtle", "Clyde"} <= names
    assert not names & {"Brain", "Son", "Numbers", "May", "Sunday"}  # rare names that are words, months, days
    from beam_jobs.pii_words import CENSUS_SURNAMES, census_surnames, surnames
    assert CENSUS_SURNAMES.exists() and {"Kowalczyk", "Nguyen", "Wojcik"} <= census_surnames() <= surnames()
    # a surname that is a word too stays out: "before I head back to school", "CRICKET - ENGLAND SET"
    assert not census_surnames() & {"Head", "Numbers", "England", "Street", "Park", "Carver"}
    # the world's common names in Latin letters, where Faker's lists of the country are in its own script
    from beam_jobs.pii_words import WORLD_GIVEN_NAMES, WORLD_SURNAMES, given_names, world_given_names, world_surnames
    assert WORLD_GIVEN_NAMES.exists() and {"Dmitry", "Andriy", "Giorgi", "Hossein"} <= world_given_names() <= given_names()
    assert WORLD_SURNAMES.exists() and {"Melnyk", "Kovalenko", "Beridze", "Hakobyan"} <= world_surnames() <= surnames()
    assert not (world_given_names() | world_surnames()) & {"Lovely", "Atlas", "Los", "Doha", "Harris", "Can"}


def test_a_text_with_thousands_of_names_is_redacted_whole(pii):
    # every name of a long roster goes; the span merge and the entity checks once cost the square of the
    # names (a 76k-character roster took 18 s), now bisection and values kept on the doc
    text = "We met with Grant and Hope and Faith, " * 400
    r = pii(text)
    assert not _leaks(r, "Grant", "Hope", "Faith") and r.text.count("<PERSON>") == 1200, r.text[:200]


def test_merged_spans_keep_the_parts_outside_a_longer_span():
    from presidio_analyzer import RecognizerResult
    from beam_jobs.pii import _merge_spans
    text = "Mrs. Barbara Yudina Apt. 675 Main St and more"
    spans = [RecognizerResult("STREET_ADDRESS", 20, 45, 0.9), RecognizerResult("PERSON", 5, 28, 0.85),
             RecognizerResult("PERSON", 0, 3, 0.5), RecognizerResult("PERSON", 38, 41, 0.5)]
    got = [(r.entity_type, r.start, r.end) for r in _merge_spans(spans, text)]  # longest first; inside ones go
    assert got == [("PERSON", 0, 3), ("PERSON", 5, 20), ("STREET_ADDRESS", 20, 45)], got


def test_lower_case_text_keeps_every_name_an_office_parts_and_a_line_of_foreign_names(pii):
    # in the capitalised copy every word is capitalised: the growth over "met palestinian president" once cut
    # the first name away; a line of foreign names was judged a passage in another language
    r = pii("israeli prime minister benjamin netanyahu met palestinian president yasser arafat on tuesday.")
    assert not _leaks(r, "benjamin", "netanyahu", "yasser", "arafat"), r.text
    r = pii("attendees: priya natarajan, tomasz wolski, lena fischer (chair), obi nwosu\napologies: sven ek")
    assert not _leaks(r, "priya", "natarajan", "tomasz", "wolski", "fischer", "nwosu", "sven"), r.text
    text = "Translate German to English: Ruhe bewahren, das Fleisch ist gut und Zweifel bleiben."
    assert pii(text).text == text, pii(text).text  # a German passage is still one
    # read as prose writes it too, so the rules that key on capitals see a surname that is a word
    r = pii("the vote was close. banks disagreed, and the injured cole was replaced in the 60th minute.")
    assert not _leaks(r, "banks", "cole"), r.text
    text = "def f(str1):\n    n = len(str1)\n    return n"
    assert pii(text).text == text, pii(text).text  # code stays code


def test_a_title_in_lower_case_does_not_run_over_the_sentence(pii):
    # in the capitalised copy of a lower-case text every word is capitalised, so the words after a title ran on
    # as the name ("Dr Okonkwo-Bright About"); a name's own words stay
    r = pii("so the nurse paged dr okonkwo-bright about the pump and okonkwo-bright never answered")
    assert "paged" in r.text and "about the pump" in r.text and not _leaks(r, "okonkwo-bright"), r.text
    r = pii("pt asking for mrs jarosz again, told her mrs jarosz is off today")
    assert "is off today" in r.text and not _leaks(r, "jarosz"), r.text


def test_initials_of_a_surname_first_name_and_a_greeting_before_a_slash(pii):
    # a header or a ticket writes the surname first; the log and the deal table use the initials in the order
    # the person writes them ("Kaminski, Pawel" ... "PK", "ROSS, ALISTAIR" ... "AR")
    r = pii("From: Kaminski, Pawel\nCc: Hale, John Robert\n\nDeal    Trader\n5442    PK\n5443    JRH\n\n-PK")
    assert not _leaks(r, "PK", "JRH", "Kaminski", "Hale"), r.text
    r = pii("From: Kaminski, Pawel\n\nPull the tape please.\n\n-PK\n\nPawel Kaminski\nGas Trading - Central")
    assert not _leaks(r, "PK"), r.text  # a signature's dash before the initials
    r = pii("The X-ray and the Smith-Jones file, Pawel Kaminski said. PK-12 stays.")
    assert "X-ray" in r.text and "PK-12" in r.text, r.text
    r = pii("OPENED BY:    ROSS, ALISTAIR (Helpdesk)\nNOTES:\n  08/14 07:32  AR  called user, left vm")
    assert not _leaks(r, "AR", "ROSS", "ALISTAIR"), r.text
    # "Hi" opens the greeting, it is no part of the name the slash pairs ("Hi Linda / Mercy,")
    r = pii("Hi Linda / Mercy,\n\nRichard has left 3 tapes in the tray.")
    assert not _leaks(r, "Linda", "Mercy", "Richard") and r.text.startswith("Hi "), r.text


def test_a_found_name_signs_in_lower_case_after_a_dash(pii):
    # the writer's given name, a dictionary word, signs the message in lower case ("From: Shiv Raman" ... "-shiv")
    r = pii("lunch thurs? ill ask jo too\n\n-shiv\n\n> -----Original Message-----\n> From: Shiv Raman\n> Sent: Monday")
    assert not _leaks(r, "shiv", "Shiv"), r.text
    r = pii("Cut the onion with a shiv.\n-shiv\nis a knife")  # no name found: the word stays
    assert r.text.count("shiv") == 2, r.text


def test_an_institution_or_street_word_closes_no_name(pii):
    # a street, a school or a bank named after a person is a place or a body, whatever word opens it
    r = pii("Between:\nMarina Rodrigues\nN0.24, 2Nd Cross, Thomas Road,\nKammanahalli\nAnd\n1.  Vijaya Bank\n"
            "    Public Utility Buildings, M.G.Road\nhis daughter studied at Shri Samarth Ashram School, Bedag.")
    assert not _leaks(r, "Marina", "Rodrigues"), r.text
    for kept in ("Thomas Road", "Vijaya Bank", "M.G.Road", "Samarth Ashram School"):
        assert kept in r.text, r.text
    r = pii("Grace Lane and Tom Church gave evidence.")  # surnames that are such words stay names
    assert not _leaks(r, "Grace Lane", "Tom Church"), r.text
    r = pii("Shirley Temple sang, and Rajesh Nagar said he had booked the hall.")  # surnames the lists lack
    assert not _leaks(r, "Temple", "Nagar"), r.text


def test_re_cased_readings_keep_the_text_length_or_are_skipped(pii):
    from beam_jobs.pii_names import capitalised_copy, lowered_copy, uppercase_text
    assert lowered_copy("İSTANBUL") is None and lowered_copy("WIFE PEARL") == "wife pearl"  # "İ" lowers to 2 chars
    assert capitalised_copy("straße ist gut") is not None  # "ß" capitalises to "SS" only as a whole word upper-cased
    assert uppercase_text("PT ADMITTED FROM HOME WITH SOB. WIFE AT BEDSIDE.") and not uppercase_text("SOCCER - LEEDS WIN")
    for text in ("İSTANBUL'DA AYŞE VE MEHMET BEKLİYOR. YARIN GELECEKLER.", "ß" * 40, "STRASSE " * 10, "", "\n\n"):
        assert pii(text).text is not None  # re-cased readings that would move offsets are skipped, never a crash


def test_a_given_name_that_is_a_word_opens_a_signatures_name_line(pii):
    # the NER finds the surname; a sentence's first word is no name's, except on a line that holds the name alone
    r = pii("Please send your comments by noon.\n\nDrew Okonkwo\nVice President & General Counsel")
    assert not _leaks(r, "Drew", "Okonkwo"), r.text
    r = pii("Yesterday Okonkwo said no.")
    assert "Yesterday" in r.text and "Okonkwo" not in r.text, r.text


def test_a_league_tables_sides_are_no_names_where_the_text_says_standings(pii):
    text = ("SOCCER - DUTCH LEAGUE STANDINGS .\nStandings ( tabulate under played , won , drawn , lost , goals for , "
            "against , points ) :\nTwente 3 2 1 0 5 2 7\nVitesse 3 2 0 1 6 3 6\nHeerenveen 3 1 2 0 6 4 5\n"
            "Roda JC 3 0 0 3 1 7 0")
    assert pii(text).text == text, pii(text).text
    # the same rows without the word are a players' table, and its names stay names
    r = pii("Season batting :\nOkonjo 143 560 98 197 22 88\nLindqvist 150 601 101 188 30 95\nBrzeczek 120 430 60 120 5 40")
    assert not _leaks(r, "Okonjo", "Lindqvist", "Brzeczek"), r.text


def test_context_words_reach_presidio_in_the_fast_pipeline():
    # Presidio builds the artifact's keywords from lemmas; without the lemmatizer they were all "", so no
    # recognizer's context word ever matched, and its enhancer walked the whole text for every result
    from beam_jobs.pii import build_analyzer
    art = build_analyzer().nlp_engine.process_text("Reach my mobile phone on 212 555 0199 tonight", "en")
    assert {"mobile", "phone"} <= set(art.keywords) and "" not in art.keywords, list(art.keywords)


def test_span_index_answers_as_testing_every_span():
    import random
    from beam_jobs.pii_names import SpanIndex
    rng = random.Random(0)
    for _ in range(3000):
        spans = [(a, a + rng.randint(0, 6)) for a in (rng.randint(0, 60) for _ in range(rng.randint(0, 8)))]
        s = rng.randint(0, 66)
        e = s + rng.randint(0, 8)
        assert SpanIndex(spans).overlaps(s, e) == any(a < e and s < b for a, b in spans), (spans, s, e)


def test_windows_line_breaks_and_no_break_spaces_read_as_plain_ones(pii):
    # mail from Windows ends its lines in "\r\n"; court websites join a title to its name with "\xa0"
    for text, names in (("Lena -\r\nOlga mentioned that you had some concerns on the contract. Can we discuss?\r\nBen",
                         ("Lena", "Olga", "Ben")),
                        ("Kay,\r\nAttached is the revised draft. Let me know if you need anything else.\r\nCarol",
                         ("Kay", "Carol"))):
        r = pii(text)
        assert not _leaks(r, *names), r.text
        assert r.text.count("\r\n") == text.count("\r\n"), repr(r.text)  # the text keeps its own line breaks
    r = pii("In application no.\xa041872/09 the applicant, Mr\xa0Stone, lives in Vilnius. Mr\xa0Marsh, "
            "counsel for the applicant, objected.")
    assert not _leaks(r, "Stone", "Marsh"), r.text
    assert "no.\xa0<ID_NUMBER>" in r.text, repr(r.text)


def test_two_spaces_and_unicode_dashes_read_as_one_space_and_a_hyphen(pii):
    # typists put two spaces after a full stop and aligned columns; word processors write "–" for " - "
    r = pii("Here is the list of attendees:\n\nOkafor,  Teodor\nBrightwell,  Sunniva\nChaudry,  Imran\n\n"
            "Please let me know of any changes.  Thanks Ingrid.")
    assert not _leaks(r, "Okafor", "Teodor", "Brightwell", "Sunniva", "Chaudry", "Imran", "Ingrid"), r.text
    assert "changes.  Thanks" in r.text, repr(r.text)  # the text keeps its own spaces
    r = pii("BASEBALL - RESULTS .\nW – Okonjo ( 9-4 ) , L – Lindqvist ( 6-11 ) . HR – Hale ( 31 ) , Brzeczek 2 ( 28 ) .")
    assert not _leaks(r, "Okonjo", "Lindqvist", "Hale", "Brzeczek"), r.text
    assert r.text.count("–") == 3, r.text


def test_markup_around_names_is_read_as_spaces(pii):
    # prompts come in markdown and scraped HTML; the text keeps its markup, only the names go
    r = pii("Team:\n- *Imran Okafor* - backend\n- `Lise Brzeczek` - QA\n\n<p>Dear Mr. Lindqvist,</p><p>Regards,<br>Marisela</p>")
    assert not _leaks(r, "Imran", "Okafor", "Lise", "Brzeczek", "Lindqvist", "Marisela"), r.text
    assert "- *" in r.text and "</p><p>Regards,<br>" in r.text, r.text
    text = "Tip: write 2 * 3 as `2*3`; * LIT SESSION * tonight"
    assert pii(text).text == text, pii(text).text


def test_invisible_characters_do_not_part_a_name(pii):
    # a soft hyphen (PDF, HTML) or a byte-order mark (pasted text) inside or after a name
    r = pii("The applicant, Mr Kowal\xadczyk, lives in Gdynia. Excellent poem Okonjo\ufeff")
    assert "Kowal" not in r.text and "Okonjo" not in r.text, r.text


def test_a_name_written_with_combining_marks_goes_whole(pii):
    import unicodedata
    text = unicodedata.normalize("NFD", "The applicant, Mr Janez Zupančič, lives in Ljubljana.")
    r = pii(text)
    assert "Zupan" not in r.text and "\u030c" not in r.text and r.text.endswith("lives in Ljubljana."), repr(r.text)


def test_a_fields_label_before_a_dash_or_colon_is_no_part_of_the_name(pii):
    # the NER runs a label into the name ("Reviewer - Kwame Mensah" PERSON, "Owner - Sunniva Haugland" ORG);
    # cut to its capitals the first kept only the label and the second nothing
    for text in ("Owner - Sunniva Okafor; Reviewer - Kwame Brzeczek; Status - open",
                 "Owner: Sunniva Okafor; Reviewer: Kwame Brzeczek; Status: open"):
        r = pii(text)
        assert not _leaks(r, "Sunniva", "Okafor", "Kwame", "Brzeczek"), r.text
        assert "Status" in r.text and "open" in r.text, r.text


def test_quoted_printable_mail_is_read_decoded(pii):
    # mail archives keep messages undecoded: "=20" ends lines, and a soft break "=\n" cuts words and names
    text = "Teodor,=20\n\nI spoke with Sunniva Haug=\nland about the model.=20\n\nThanks,=20\nKwame Men=\nsah"
    r = pii(text)
    assert not _leaks(r, "Teodor", "Sunniva", "land ", "Kwame", "sah"), r.text
    assert "about the model.=20" in r.text, r.text
    code = "x =\n  compute(a, b)\ny = 3"  # one "=" at a line's end, after a space: code, not the encoding
    assert pii(code).text == code


def test_a_name_looped_into_a_thread_is_no_place(pii):
    r = pii("Looping in Sunni. She ran the numbers last year.")
    assert "Sunni" not in r.text, r.text
    text = "The plant in Sutton Coldfield closed."
    assert pii(text).text == text, pii(text).text


def test_patronymic_links_and_two_letter_initials_stay_in_the_name(pii):
    # judgments transliterate Turkic patronymics ("Rafig qizi") and Cyrillic initials of one sound ("Sh.", "Zh.")
    r = pii("The applicant, Mrs Gulnara Rafig qizi Okonkwo, complained. Two officers, R.M. and Sh. Brzeczek, came.")
    assert not _leaks(r, "Gulnara", "qizi", "Okonkwo", "Sh.", "Brzeczek"), r.text


def test_html_character_references_are_read_as_their_character(pii):
    r = pii("<p>Contact: Teodor&nbsp;Okafor &amp; Siobhan O&#39;Brzeczek</p>")
    assert not _leaks(r, "Teodor", "Okafor", "Siobhan", "Brzeczek"), r.text
    assert r.text.startswith("<p>Contact: ") and "&amp;" in r.text, r.text
    text = "Use a &amp;&amp; b; x &lt; 3; AT&T; R&D; &unknown; done"
    assert pii(text).text == text, pii(text).text


def test_an_html_block_tag_ends_a_line(pii):
    # "</p>" read as spaces joined "Brzeczek," and "Imran" into one "Last, First" name, markup and all
    r = pii("<p>Dear Mr&nbsp;Brzeczek,</p> *Imran Chaudry* wrote: call me.")
    assert not _leaks(r, "Brzeczek", "Imran", "Chaudry"), r.text
    assert "</p> *" in r.text, r.text


def test_a_name_after_a_lists_bullet_the_model_ran_into(pii):
    r = pii("Class news so far:\n * Odile Marchetti is a vet in Tulsa with 2 kids\n * Benedikt Aalto is a Major in "
            "the Army.\n")
    assert not _leaks(r, "Odile", "Marchetti", "Benedikt", "Aalto"), r.text


def test_names_in_an_agenda_after_dot_leaders_and_in_a_numbered_roster(pii):
    r = pii("AGENDA\n 8:00   Welcome ................... Teodora Lindgren, HR\n 8:30   History ........"
            "........... Harold Bristow, Operations\n 9:30   Benefits .................. Chiamaka Eze, Benefits\n")
    assert not _leaks(r, "Teodora", "Lindgren", "Harold", "Bristow", "Chiamaka", "Eze"), r.text
    r = pii(" #   Name                 Dept\n 1   Abernathy, Colette   Finance\n 2   Okonjo, Femi         Legal\n"
            " 3   Frost, April         HR\n 4   Adeyemi, Tolu        Finance\n")
    assert not _leaks(r, "Abernathy", "Colette", "Okonjo", "Femi", "Frost", "April", "Adeyemi", "Tolu"), r.text
    text = "Office closed:\n 1   Tuesday, May 1\n 2   Tuesday, May 8\n 3   Tuesday, May 15\n"
    assert pii(text).text == text, pii(text).text  # a month after a weekday stays a date


def test_a_given_name_that_is_a_word_after_a_sentence_opening_function_word(pii):
    r = pii("I only see the original 7,500. If Grant keyed it off the first ticket we need to know.")
    assert not _leaks(r, "Grant"), r.text
    text = "The Research Grant covers travel. If Research Grant funds run out, ask the office."
    assert "Grant" in pii(text).text, pii(text).text  # a run of capitals stays a proper noun


def test_a_greeting_name_the_model_ran_into_a_full_name_over_a_dash(pii):
    r = pii("Paulo - Helen Zhao (VP Marketing) has been unable to send mail since yesterday afternoon.")
    assert not _leaks(r, "Paulo", "Helen", "Zhao"), r.text
    text = "Trains run daily between Chiang Mai - Bangkok and back."
    assert "Bangkok" in pii(text).text, pii(text).text


def test_will_is_a_name_where_a_modal_cannot_stand(pii):
    for text in ("Subject: SOX\n\ntell Will the tickets came!! 3rd base side.", "lunch with Will on Friday?",
                 "Rose called about Sat. Will said he'd still come.", "Sure - Will and I can cover the 8am shift.",
                 "Will is out sick again today (flu, he says). Can someone cover?"):
        assert not _leaks(pii(text), "Will"), pii(text).text
    for text in ("Sales will rise. Will you come? We will see.", "The Will is valid. Sales will rise."):
        assert pii(text).text == text, pii(text).text


def test_who_a_contact_lists_line_names_before_the_number(pii):
    r = pii("new contacts per their letter:\n\nconfirms - LORETTA McGUANE 918 555 0122\ncredit - k. szczepanik "
            "(918) 555-0130\nafter hours - their gas control 918 555 0199\n")
    assert not _leaks(r, "LORETTA", "McGUANE", "szczepanik"), r.text
    assert "their gas control" in r.text, r.text
    r = pii("Call me at (713) 555-0142.\n\nbesos,\nMari\n\n> -----Original Message-----\n> From: Dario Ferreira")
    assert "-----Original Message-----" in r.text and "besos" in r.text and not _leaks(r, "Mari", "Dario"), r.text


def test_a_word_addressed_after_you_and_a_comma(pii):
    r = pii("Whoever took my chair: Somebody took the stapler. It was you, Hardy. Bring it back.")
    assert not _leaks(r, "Hardy"), r.text
    # ... and opening a sentence inside a line, a given name or no dictionary word
    r = pii("The pool pays out to Jerry and Anita. Tamsin, you owe Dario $20 from the Super Bowl one.")
    assert not _leaks(r, "Tamsin"), r.text
    for text in ("Thank you, Everyone.", "See you, Sir.", "It works. Overall, you did well. Seriously, can you stop?"):
        assert pii(text).text == text, pii(text).text


def test_a_heading_the_model_ran_into_the_name_under_it(pii):
    r = pii("MINUTES\n\n2.  Budget\n    Anusha reported that corporate wants a 10% cut in travel.\n\n4.  AOB\n"
            "    Kazuhiro reminded everyone of the golf outing.")
    assert not _leaks(r, "Anusha", "Kazuhiro"), r.text


def test_storm_is_a_given_name_before_a_surname(pii):
    r = pii("2:00   Storm Haldorsen from Treasury - will try again tomorrow")
    assert not _leaks(r, "Storm", "Haldorsen"), r.text
    text = "Storm Ciara hit Wales on Sunday."
    assert pii(text).text == text, pii(text).text


def test_congratulations_to_a_name_and_who_joined(pii):
    r = pii("Congratulations to FAITH on her promotion! Faith joined us in 1995 as a receptionist.")
    assert not _leaks(r, "FAITH", "Faith"), r.text


def test_a_result_lines_side_is_a_team_wherever_the_text_names_it(pii):
    r = pii("SOCCER - LEAGUE RESULTS\nKARDITSA 1996-09-08\nTrikalaikos 2 Larisaikos 1\nKozaniakos 0 Veroiakos 0\n"
            "Trikalaikos coach Dimitrios Papadakis said his side deserved it. Larisaikos had chances.")
    assert r.text.count("Trikalaikos") == 2 and "Larisaikos had" in r.text, r.text
    assert not _leaks(r, "Dimitrios", "Papadakis"), r.text


def test_given_name_lists_hold_names_of_east_and_west_africa_pakistan_and_thailand():
    from beam_jobs.pii_words import given_names
    assert {"Achieng", "Chiamaka", "Aliyu", "Aadil", "Chaiwut"} <= given_names()


def test_a_given_name_spreads_from_its_full_name_with_a_surname_no_dictionary_holds(pii):
    r = pii("Questions to me.\n- Faith\nFaith Adebanjo-Oyelowo, Office Coordinator")
    assert not _leaks(r, "Faith", "Adebanjo"), r.text
    text = "Benjamin Rogers@ECT\n10/20/2000 09:41 AM\nTo: Mark Dobler/HOU/ECT@ECT\nSubject: Re: project summary"
    assert "ECT@ECT" in pii(text).text, pii(text).text


def test_a_listed_word_spreads_from_a_name_of_unknown_words_whatever_rule_found_it(pii):
    # a name with an age ("Blessing Adeyemi-Cole, 71,"), and a Korean name: the given name or surname the lists hold
    # spreads though a dictionary holds it
    r = pii("Blessing Adeyemi-Cole, 71, a retired trader, passed five subjects at her first attempt.\n\n"
            '"Mama Blessing never missed one lesson," her teacher said.')
    assert not _leaks(r, "Blessing", "Adeyemi"), r.text
    r = pii("DAEHAN STEEL (Seoul) - Park Ji-hoon, 56, was named president. Park had headed the company's plate division.")
    assert not _leaks(r, "Park had", "Ji-hoon"), r.text


def test_a_contact_tables_first_row_with_a_number_is_a_row_not_its_heading(pii):
    r = pii("Houston contacts:\n  Gas Logistics        Ebony Charleston         (713) 555-3317\n"
            "  Credit               Irina Shevchenko         (713) 555-6640\n"
            "  Legal                Zeynep Arslan            (713) 555-2288")
    assert not _leaks(r, "Ebony", "Charleston", "Irina", "Zeynep"), r.text


def test_a_lower_case_dash_signature_of_a_name_found_in_lower_case(pii):
    r = pii("coaches - here's the order for sat, depends who shows:\n 1 ss\n 2 2b\ntell the kids to BRING WATER. it "
            "was 98 last sat and the heat got to a few of them.\n\n-rick\nrick castellano\ngas accounting x3-5419")
    assert not _leaks(r, "rick", "castellano"), r.text


def test_a_lower_case_numbered_list_of_people_goes_whole_where_most_were_found(pii):
    r = pii("the lineup for sat, depends who shows:\n 1 deshawn - ss\n 2 tomasz - 2b\n 3 kai - p\n 4 big mo (mohammed) - "
            "1b\n 5 ellie - c\n 6 junior reyes - 3b\n 7 sebastian - lf\n 8 hana - cf\n 9 connor w - rf")
    assert not _leaks(r, "deshawn", "kai", "big mo"), r.text
    text = "shopping:\n- milk - 2 pints\n- eggs - a dozen\n- bread - 1 loaf\n- butter"
    assert pii(text).text == text, pii(text).text


def test_a_given_name_in_brackets_after_a_found_name_in_any_case(pii):
    r = pii("vent 600x12/peep 5. abg 7.38/41/98. Dr. Ilse Brandt (mark) aware, will trial ps in am.")
    assert not _leaks(r, "(mark)"), r.text
    r = pii("also my cellmate Tomasz Wrobel (bill) he is english, he helped me write this letter.")
    assert not _leaks(r, "(bill)"), r.text
    text = "Seen by Dr. Ilse Brandt (Monday) and the chair, Ann Lee (Will)."
    assert "(Monday)" in pii(text).text and "(Will)" in pii(text).text, pii(text).text


def test_who_a_text_identifies_a_person_as_with_an_age(pii):
    r = pii('RIO DE JANEIRO, Nov 18 (Reuter) - Rio de Janeiro police shot dead a reputed drug trafficker known as '
            '"Sapinho" (Little Toad) and two of his bodyguards in a dawn raid on a hillside favela on Monday, police '
            'said.\nPolice identified Sapinho as Jorge Luís Moreira, 26, wanted for at least nine murders.')
    assert not _leaks(r, "Jorge", "Moreira", "Sapinho"), r.text


def test_anonymised_initials_in_square_brackets_and_a_notes_kin_shorthand(pii):
    r = pii('In her statement she said: "I heard the voice of [R.T.] on the landing and then a door slammed."')
    assert not _leaks(r, "R.T."), r.text
    r = pii("Dau-in-law Mercy brought soup from home, ok per diet.")
    assert not _leaks(r, "Mercy"), r.text


def test_a_club_before_its_staffs_role_is_a_team_wherever_the_text_names_it(pii):
    r = pii("Kingsmere boss Dario Velluti is planning a swoop for Oldcastle Rovers midfielder Teodor Brankov. "
            "Kingsmere could offer 20 million, and Oldcastle Rovers may listen.")
    assert r.text.count("Kingsmere") == 2 and r.text.count("Oldcastle Rovers") == 2, r.text
    assert not _leaks(r, "Velluti", "Brankov"), r.text
    r = pii("Velluti's side won again; the Kingsmere boss said little.")
    assert not _leaks(r, "Velluti"), r.text


def test_a_judgments_domestic_law_heading_stays(pii):
    text = "RELEVANT DOMESTIC LAW AND PRACTICE\n\n15. Article 176 of the Code of Criminal Procedure provides:"
    assert pii(text).text == text, pii(text).text


def test_a_slashed_or_barred_list_of_people_goes_whole(pii):
    # a golf pairing, a seating plan and an office pool's entries: two known names make the rest names too
    r = pii("Pairings:\n  1A   Delacroix / Okonkwo-Reyes / Hart / Brightwater\n\nRow B (East): Szymanowski | Achebe | "
            "Young | Lindqvist\n\nEntries so far: Abernathy x2, Okwuosa, Fenwick, Obradović x2, Tanaka")
    assert not _leaks(r, "Delacroix", "Okonkwo", "Hart", "Brightwater", "Szymanowski", "Young", "Lindqvist",
                      "Abernathy", "Fenwick", "Tanaka"), r.text
    for text in ("Flights: Houston / Denver / Chicago", "Options: Red | Green | Blue", "AND/OR/NOT gates"):
        assert pii(text).text == text, pii(text).text


def test_a_two_letter_surname_after_a_title_and_in_its_repeats(pii):
    r = pii("Family at bedside, Rev. Oh from the church prayed with them. Dr. Ng aware.")
    assert not _leaks(r, "Oh", "Ng"), r.text
    r = pii("From the weather desk (Ng / Okafor / Lindström): cold front Tuesday.\n\nPS - Mark Ng is out today.")
    assert not _leaks(r, "Ng", "Mark"), r.text
    for text in ("Oh, I see.", "Rev 2 of the document is attached", "Oh no, the build broke again"):
        assert pii(text).text == text, pii(text).text


def test_a_name_with_an_honorific_repeats_with_it(pii):
    r = pii("Cc: Hashimura, Kenta\n\nWill discuss the trigger with Hashimura-san tomorrow.")
    assert not _leaks(r, "Hashimura", "Kenta"), r.text


def test_will_before_an_inflected_verb_is_a_name(pii):
    r = pii("Dmitri thinks we should buy more gas. Will disagrees, wants to wait on the weather. Will called at 9.")
    assert not _leaks(r, "Will"), r.text
    for text in ("Will prices rise next year?", "Will this work? I doubt it.", "Will always be there for you."):
        assert pii(text).text == text, pii(text).text


def test_a_contact_lines_name_after_a_label_and_a_colon(pii):
    r = pii("Contacts from 11/1:\nNominations / Scheduling:     Bo-ra Seo           (713) 555-0131\n"
            "Capacity Release / EBB:       Min-jun Ha          (713) 555-0140")
    assert not _leaks(r, "Bo-ra", "Seo", "Min-jun", "Ha"), r.text


def test_a_person_the_model_ran_on_from_a_number_keeps_the_words_after_it():
    from spacy.tokens import Span
    from beam_jobs.pii_names import _with_last_lines
    from beam_jobs.presidio_loader import import_spacy
    doc = import_spacy().blank("en")("Rice University - Oct 3 - Jae Park (lead)")
    doc.ents = [Span(doc, 0, 7, label="PERSON")]  # as the model read it: "Rice University - Oct 3 - Jae"
    assert [e.text for e in _with_last_lines(doc)] == ["Rice University - Oct 3 - Jae", "Jae"]


def test_a_name_after_a_notes_shorthand_the_model_ran_into_an_organisation(pii):
    r = pii("- Texas variance due to the curve shift; Rebecca is reviewing w/ Ignacio.\n- VaR limit not exceeded.")
    assert not _leaks(r, "Rebecca", "Ignacio"), r.text
    for text in ("Flights via Frankfurt are cheaper.", "The samples went to Via Christi hospital."):
        assert pii(text).text == text, pii(text).text


def test_given_names_inside_a_passage_in_another_language(pii):
    r = pii("Tomás,\nAdjuntos los horarios de Marisol y Encarnación para la semana del 9 de julio... sorry, "
            "wrong window. Ignore that.\n\nDerek")
    assert not _leaks(r, "Marisol", "Encarnación"), r.text
    text = "Translate German to English: Er wurde am 27. Mai mit seinem Mercedes Benz in Braintree gestoppt ."
    assert pii(text).text == text, pii(text).text


def test_a_word_no_dictionary_holds_after_a_spaced_dash_in_an_entity(pii):
    # the model runs a time, a place or an organisation over the dash: what follows it is read on its own
    r = pii("Thanks for the tickets last night - Ozgur had never been to a game and won't stop talking about it.")
    assert not _leaks(r, "Ozgur"), r.text
    r = pii("Dimitra - Marchetti didn't work out, he accepted elsewhere. Can you send more resumes?")
    assert not _leaks(r, "Marchetti"), r.text


def test_a_surname_with_a_capitalised_prefix_is_no_brand():
    # the dictionary rule alone (the model finds most such names anyway): a prefix's capital is no CamelCase brand
    from beam_jobs.pii import PiiConfig, PiiFilter
    from beam_jobs.pii_names import unknown_words
    f = PiiFilter(PiiConfig())
    text = "Rooms are booked for the offsite; McAllister and DiNapoli arrive Thursday, after the PowerPoint review."
    doc = f.analyzer.nlp_engine.nlp["en"].make_doc(text)
    found = [text[s:e] for s, e in unknown_words(doc, f.vocabulary)]
    assert "McAllister" in found and "DiNapoli" in found and "PowerPoint" not in found, found


def test_a_found_names_initials_repeat_as_the_name(pii):
    r = pii("Attendees: Nadia Rahman, Kofi Owusu, Paul Gregory\n\nACTIONS\n- NR to confirm the storage numbers by Fri\n"
            "- KO and PG to draft the memo\n- TBD: the lease")
    assert not _leaks(r, "NR", "KO", "PG") and "TBD: the lease" in r.text, r.text


def test_a_given_name_and_a_surname_of_the_lists_both_words_too(pii):
    # the detector step itself (the model finds these two in a short text; in a long thread it missed them)
    from beam_jobs.pii_names import listed_full_names
    text = "Thanks - Grant Young's group is asking for the curve files again. FYI Hope Baker called, she will dial in."
    assert [text[s:e] for s, e in listed_full_names(text)] == ["Grant Young", "Hope Baker"]
    for text in ("Meet at Grace Church at 10.", "In May Young plants need water.", "the Saint Thomas Christian families"):
        assert listed_full_names(text) == [] and pii(text).text == text, pii(text).text


def test_a_name_addressed_after_a_dash_inside_a_line(pii):
    r = pii("Lunch is in the dining room at 12:30 - Dolores, please order for 9 and make sure there is no pork.")
    assert not _leaks(r, "Dolores"), r.text
    text = "Agenda - Budget, please review before Friday."
    assert pii(text).text == text, pii(text).text


def test_a_lower_case_given_name_alone_in_brackets():
    from beam_jobs.pii import PiiConfig, PiiFilter
    from beam_jobs.pii_names import lower_given_names
    f = PiiFilter(PiiConfig())
    text = "son aware & agreeable, daughter in atlanta (keisha) not answering; print(keisha) in the code"
    doc = f.analyzer.nlp_engine.nlp["en"].make_doc(text)
    assert [text[s:e] for s, e in lower_given_names(doc, f.vocabulary)] == ["keisha"]


def test_will_as_a_person_after_that_in_a_possessive_and_before_a_negation(pii):
    r = pii("The mother's explanation was that Will had been play fighting. The judge gave no reasons for rejecting "
            "Will's account. His wife said that Will hasn't been right since.")
    assert not _leaks(r, "Will"), r.text
    for text in ("The Will is valid.", "He set out his last Will's provisions clearly."):
        assert pii(text).text == text, pii(text).text


def test_a_person_after_a_company_word_and_a_scorer_with_a_penalty_mark(pii):
    r = pii("Shares close higher as property stocks lead - broker Alan Leung says the index will hold.")
    assert not _leaks(r, "Alan", "Leung"), r.text
    r = pii("Everton 3 (Kanchelskis 4, Speed 40, Wise pen 90) Derby 1 (Sturridge 76). Halftime 2-0.")
    assert not _leaks(r, "Kanchelskis", "Wise", "Sturridge"), r.text
    for text in ("Japanese carmaker Toyota said on Monday it would recall 10,000 cars.",
                 "He lost in straight sets at Roland Garros.", "patients at Via Christi St. Francis hospital"):
        assert pii(text).text == text, pii(text).text


def test_a_person_a_title_names_by_one_letter_that_is_also_an_article(pii):
    r = pii("It's Okafor collecting it, not Mr A, he's on leave. Ask Ms I who signed.")
    assert "Mr A," not in r.text and "Ms I " not in r.text, r.text
    for text in ("the Mr A case", "Dr. A new approach is due"):
        assert pii(text).text == text, pii(text).text


def test_a_listed_surnames_initials_after_its_comma(pii):
    r = pii("Attorneys with unentered time:\n\n    Okonkwo, K.\n    Barrett, T. J.\n    Lindqvist, S. (!)\n")
    assert not _leaks(r, "K.", "T. J.", "S."), r.text


def test_a_filipino_particle_inside_a_name_and_scorers_under_a_heading(pii):
    r = pii('"People are coming back," said Rafael dela Cruz, trader at Abacus Securities.')
    assert not _leaks(r, "Rafael", "dela", "Cruz"), r.text
    r = pii("Scorers Sunday:\nAjax - Kluivert 12, 66, Babangida 81\nVitesse - de Jong 34, Kuipers 71; Heerenveen - "
            "Wouters 40 pen, 88\nUtrecht - van der Vegt 77\n")
    assert not _leaks(r, "Kluivert", "Babangida", "de Jong", "Kuipers", "Wouters", "van der", "Vegt"), r.text
    assert "Vitesse -" in r.text and "Heerenveen -" in r.text, r.text  # the sides stay


def test_a_slashed_pair_addressed_before_a_dash(pii):
    r = pii("Vince / Zsuzsa - see below from Marcy. I am OK with the renewal.")
    assert not _leaks(r, "Vince", "Zsuzsa", "Marcy"), r.text
    text = "Rates: Dallas / Houston - see the table."
    assert pii(text).text == text, pii(text).text


def test_a_signature_above_a_lotus_notes_reply_header(pii):
    r = pii("Carla said maybe on the tickets.\n\n--Linh\n\n\n\nDorothy Nakamura\n03/08/2001 11:09 AM\n\n"
            "To: Linh Tran/FCB@FCB\ncc:\nSubject: Rangers game\n\nanyone want to go?")
    assert not _leaks(r, "Linh", "Carla", "Dorothy", "Nakamura"), r.text


def test_korean_given_names_with_a_hyphen_in_a_chat_log(pii):
    r = pii("[23:14:43] sunflwr (Mi-rae): got one, one left\n[23:15:20] kk_99: mi-rae carry us pls\n"
            "Rep. Park Soon-ja denied it.")
    assert not _leaks(r, "Mi-rae", "mi-rae", "Soon-ja"), r.text


def test_handles_with_dots_reddit_users_and_slack_speakers(pii):
    r = pii("shoutout to @ciaran.obrien for the playlist, and @sibu.nkosi: the only reason i passed")
    assert not _leaks(r, "ciaran", "obrien", "sibu", "nkosi"), r.text
    r = pii("Slack — #team-design\n\nnguyen.thao  10:02 AM\nmorning all, send the latest mocks\nPriya  10:05 AM\n"
            "on it\nnguyen.thao  10:06 AM\nthx\nmarek_b  10:09 AM\ncomments on screen 3")
    assert not _leaks(r, "nguyen", "marek_b"), r.text
    for text in ("write to us @example.com for help", "Posted in r/Ireland and r/AskUK.", "@functools.cache\n"):
        assert pii(text).text == text, pii(text).text


def test_a_peers_title_before_a_word_name(pii):
    r = pii("before\n\nLord Reed, Deputy President\nLady Hope\nLord Sales\n\nLady Hope gave the judgment.")
    assert not _leaks(r, "Hope"), r.text
    from beam_jobs.pii_names import title_names
    assert title_names("the Lord Mayor of London and the Lord Chancellor") == []  # offices, not names


def test_a_separator_line_of_underscores_still_ends_a_message(pii):
    # markup underscores hug a word ("_urgent_"); a line of them divides messages, and the initial above it signs one
    r = pii("make sure the real-time guys see this before the 8:30.  -E\n\n_______________________________\n\n"
            "SACRAMENTO -- Witnesses told the panel")
    assert "-E" not in r.text and "_____" in r.text, r.text


def test_a_shift_handover_between_two_people(pii):
    r = pii("NIGHT SIGN OUT - 4 North CVICU   (Okafor -> Stone)\n\nBed 4 - stable, family updated")
    assert not _leaks(r, "Okafor", "Stone"), r.text
    text = "ICU -> Floor transfer today. Houston -> Dallas flight."
    assert pii(text).text == text, pii(text).text


def test_a_lower_case_note_line_names_kin_and_repeats_a_paged_doctor(pii):
    r = pii("12 lead done, st depressions V4-V6?? paged dr hunter (cards fellow), came to bedside 2245.\n"
            "2300 hr 88 nsr, 97% ra. husband rich at bedside, updated.\n2350 trop 0.02, hunter aware, repeat in 3 hrs.")
    assert not _leaks(r, "hunter", "rich"), r.text
    text = "bp rose to 150 after the hunter game; rich diet discussed. Dr. Okafor aware."
    assert "bp rose" in pii(text).text and "hunter game" in pii(text).text, pii(text).text


def test_two_people_credited_in_brackets_and_decorators_over_code_stay(pii):
    r = pii("Slides from October's sessions (Haverford, Cash) are on the O: drive.")
    assert not _leaks(r, "Haverford", "Cash"), r.text
    for text in ("Venue: (Paris, France)", "class Foo:\n    @property\n    def bar(self):\n        return 1",
                 "@Override\npublic void run() {}"):
        assert pii(text).text == text, pii(text).text


def test_a_lower_case_phrase_is_no_name_though_its_words_stand_where_names_do(pii):
    # in a text written in lower case the capitalised copy puts every word where a vocative or a name stands
    # ("who was Married Twice, has"); a phrase of dictionary words of no name list is no person
    text = "write a toast for my uncle who was married twice, has over 12 nephews. he used to coach football"
    assert pii(text).text == text, pii(text).text
    r = pii("The nurse said dr okafor saw him and then called ngozi about it.")
    assert not _leaks(r, "okafor", "ngozi"), r.text
    r = pii("hey tanner, can you send the file to olu before friday")
    assert not _leaks(r, "tanner"), r.text


def test_a_photos_comment_section_names_its_authors_on_their_comments_lines(pii):
    text = ("rhiannon.lloyd  Lakes weekend with the best people 💚 @tomasz_wojcik\nView all 41 comments\n\n"
            "tomasz_wojcik  who let me near a kayak\nsiobhan.keane  the sunset pic!!! framing it\n"
            "Liked by ifeoma_okafor and 212 others")
    r = pii(text)
    assert not _leaks(r, "rhiannon.lloyd", "tomasz_wojcik", "siobhan.keane", "ifeoma_okafor"), r.text
    for text in ("Options:\nmax_len    Maximum length of the input\nmin_count  Minimum count of a word 👍",
                 "See the comments below.\nbatch_size  the number of rows per step"):
        assert pii(text).text == text, pii(text).text


def test_a_person_the_model_ran_on_from_a_tables_code_keeps_the_name():
    # a table's row runs a room or an account code into the name ("KB30C1   Tomasz Wieczorek"); a number alone
    # before a word still makes no name ("12 Smith")
    from spacy.tokens import Span
    from beam_jobs.pii import PiiConfig, PiiFilter
    from beam_jobs.pii_names import _before_digits
    nlp = PiiFilter(PiiConfig()).analyzer.nlp_engine.nlp["en"]
    doc = nlp.make_doc("  Power Options   6/20   KB30C1   Tomasz Wieczorek")
    start = next(t.i for t in doc if t.text == "KB30C1")
    assert _before_digits(Span(doc, start, len(doc), label="PERSON")).text == "Tomasz Wieczorek"
    doc = nlp.make_doc("He lives at 12 Smith Road")
    start = next(t.i for t in doc if t.text == "12")
    assert _before_digits(Span(doc, start, start + 2, label="PERSON")) is None


def test_a_mailbox_login_and_a_name_to_say_hi_to(pii):
    text = ("From: Tove Lund </O=NORTHCO/OU=NA/CN=RECIPIENTS/CN=TLUND2>\nX-FileName: kokafor3.nsf\n\n"
            "Say hi to Ewan and tell him the Rockets will win.")
    r = pii(text)
    assert not _leaks(r, "TLUND2", "kokafor3", "Ewan"), r.text
    for text in ("say hi to the team for me", "X-FileName: report2.xls", "CN=Users/CN=Computers"):
        assert pii(text).text == text, pii(text).text


def test_a_nickname_in_quotes_beside_a_found_name_and_where_a_note_or_a_bracket_says_who(pii):
    # between a given name and a surname written in lower case, and opening a bracket after a name with what
    # follows it ("to most of us"), whatever the nickname's words
    r = pii('group note: pt (terrell "T-Bone" whitaker) attended 1/2 groups.')
    assert not _leaks(r, "T-Bone", "terrell", "whitaker"), r.text
    r = pii(' - Ines Kowalczyk ("Bags" to most of us), for the Friday coffee runs')
    assert not _leaks(r, "Bags", "Kowalczyk"), r.text
    # a kin word in brackets after the nickname, a bracket of a person's words ending with it, and a longer
    # "known to ... as"
    r = pii('NEURO: AROUSES TO VOICE. ASKS FOR "NENA" (WIFE) OFTEN.')
    assert not _leaks(r, "NENA"), r.text
    r = pii('Peer (roommate, "Tiny") took his snacks; CXR done (tech - "Sarge").')
    assert not _leaks(r, "Tiny", "Sarge"), r.text
    r = pii('Declan Rourke, 52, known to regulars at the Anchor and Crown as "Dubs", died in March.')
    assert not _leaks(r, "Dubs"), r.text
    # a defined term alone in quotes in a bracket after a name stays, and so does a word's gloss
    r = pii('Mr Ilie Rusu ("Applicant") lodged the complaint.')
    assert "Applicant" in r.text, r.text
    text = 'The word "Hope" (noun) is older than the verb.'
    assert pii(text).text == text, pii(text).text


def test_a_surname_in_brackets_after_a_found_name_and_a_short_surname_repeating(pii):
    r = pii("0400 pt agitated. Dr. K. (Lindqvist) notified, propofol incr.")
    assert not _leaks(r, "Lindqvist"), r.text
    r = pii("Kidnappers freed trader Wilson Go, 61, after nine days. Go's son paid, police said.")
    assert not _leaks(r, "Go's", "Go,"), r.text
    text = "Go to Settings, then Go back."
    assert pii(text).text == text, pii(text).text


def test_initials_of_a_signature_a_dictation_footer_a_traders_field_and_column(pii):
    r = pii("Mother updated at 2200, questions answered.\n--p.k. RN")
    assert not _leaks(r, "p.k."), r.text
    r = pii("Impression: stable angina.\n\ncc: referring physician\nD: 04/11/97  T: 04/14/97  dlw")
    assert not _leaks(r, "dlw"), r.text
    r = pii("Confirm: 25 MW on-peak, deal 55012\nTrader: JvdB\nPlease sign and return.")
    assert not _leaks(r, "JvdB"), r.text
    r = pii("DESK          TRADER      P&L ($000)\nWEST-PWR      KmO          101.2\nEAST-GAS      Abiodun       (14.0)\n"
            "CAN-GAS       PL/RTW        33.9\n")
    assert not _leaks(r, "KmO", "Abiodun", "PL", "RTW"), r.text
    for text in ("Delivered 40 MWh at 0800.", "D: 04/11/97  T: 04/14/97"):
        assert pii(text).text == text, pii(text).text


def test_a_given_name_in_lower_case_after_a_care_role_in_capitals(pii):
    r = pii("up to chair at 1400 w/ CNA rosa, tol well.")
    assert not _leaks(r, "rosa"), r.text
    text = "CNA help w/ bath, RN will call family."
    assert pii(text).text == text, pii(text).text


def test_a_surname_after_an_officers_title_and_a_name_given_or_identified_in_quotes(pii):
    r = pii("BIBA w/ police (Ofc. Frost, badge 2210) after found on I-94")
    assert not _leaks(r, "Frost"), r.text
    r = pii('pt gave a name as "Drew" - no ID found.')
    assert not _leaks(r, "Drew"), r.text
    r = pii('he got in with "Spud", whom he identified as a cousin, at 17')
    assert not _leaks(r, "Spud"), r.text
    text = "The officer training day and the deputy's report are on file."
    assert pii(text).text == text, pii(text).text


def test_a_flowsheets_initials_key_in_lower_case_and_with_credentials(pii):
    r = pii("1800 | N | WNL | asleep | RP\n2000 | N | WNL | asleep | tk\n\n"
            "Key: EJ = Esther Jankowski RN; RP = Ravi Pillai RN; tk = Tove Kask RN")
    assert not _leaks(r, "tk", "RP", "Tove Kask"), r.text
    text = "cc: all staff\nto: the desk"
    assert pii(text).text == text, pii(text).text


def test_a_writers_name_in_lower_case_after_a_closing_or_a_dash_at_a_lines_end(pii):
    r = pii("Can you turn the curve by Wed?\nthx, chip")
    assert not _leaks(r, "chip"), r.text
    r = pii("Forwarded by Maya Ruiz/HOU/ECT\n\nCongrats!!! Drinks thursday, you are buying.  -maya\n")
    assert not _leaks(r, "maya"), r.text
    for text in ("see you at 5. thanks, guys", "ok, send it. thanks, again"):
        assert pii(text).text == text, pii(text).text


def test_initials_under_an_actions_heading_after_per_and_after_approved_by(pii):
    r = pii("ACTIONS\n- SM    letter to the owner of no. 41\n- KP - quotes for the fence")
    assert not _leaks(r, "SM", "KP"), r.text
    r = pii("SoCal basis marked per AS/KN conversation, approved by JFR.")
    assert not _leaks(r, "AS", "KN", "JFR"), r.text
    for text in ("ACTIONS\n- IT    fix the projector", "held per MD/RN order"):
        assert pii(text).text == text, pii(text).text


def test_a_title_an_initial_and_a_surname_in_lower_case_and_a_co_signed_line(pii):
    r = pii("pcp is dr. a. ofori-atta at the clinic")
    assert not _leaks(r, "a.", "ofori-atta"), r.text
    r = pii("hct 24.1, tol well.\n\nd. pham rn / cosign Ana Ruiz RN")
    assert not _leaks(r, "d. pham"), r.text
    r = pii("Mrs K. testified that the door was open.")
    assert "testified" in r.text, r.text


def test_a_persons_initials_in_brackets_after_the_name_wherever_they_stand_again(pii):
    r = pii("PH: Mrs Ada Lowe (joint)\nHandlers: Jo McGrath (JMcG), Sam Reid (SR)\n\n14/01 09:12 JMcG called PH.")
    assert not _leaks(r, "JMcG"), r.text
    text = "Contact the desk (CEO office) or the UK team."
    assert pii(text).text == text, pii(text).text


def test_a_phpbb_posts_author_line(pii):
    r = pii("Re: Selection - Sat 15 March\nby tommo77 » Fri Mar 14, 2025 8:02 pm\nHamstring still bad.")
    assert not _leaks(r, "tommo77"), r.text
    text = "Re: Selection\nby the way, the pitch is wet"
    assert pii(text).text == text, pii(text).text


def test_a_nicknamed_names_initials_and_a_sure_given_names_short_form(pii):
    r = pii('Interview 3 - witness: Tomasz "Tom" Zielinski, clerk\n\nSL explained purpose. TZ declined companion.')
    assert not _leaks(r, "TZ"), r.text
    r = pii("From: Desmond Achterberg/HOU/ECT\nSubject: Y2K\n\nSee you on the other side.\n- Des")
    assert not _leaks(r, "Des"), r.text
    r = pii("Kevin Olsen called at noon. Kev said he will fax it.")
    assert not _leaks(r, "Kev"), r.text
    # a month's or a weekday's short form stays, and so does a dictionary word away from a signature
    r = pii("Declan Moriarty and Saturnin Okafor met. The Dec figures are out; Sat is the deadline. Dec wants more.")
    assert "The Dec figures" in r.text and "Sat is" in r.text, r.text
    r = pii("Alexander Grant spoke. The ale was fine.")
    assert "The ale" in r.text, r.text


def test_a_surname_in_capitals_in_brackets_after_a_found_name_and_a_roster_of_capitals_and_initials(pii):
    r = pii("NSG NOTE MICU 7P-7A\n\nMR. VENKATARAMAN (RAJAGOPAL), 70M, massive PE")
    assert not _leaks(r, "RAJAGOPAL"), r.text
    for text in ("Maria Lopez (UNICEF) said", "Maria Lopez (DHAKA) said", "Maria Lopez (NASA) said"):
        assert text.split("(")[1].split(")")[0] in pii(text).text, pii(text).text
    r = pii("Outstanding:\n   ABERCROMBIE, J.          GAS - EAST\n   FITZPATRICK, B.          GAS - CENTRAL\n"
            "   GRACE, T.                NGL\n   O'DONOGHUE, C.           GAS - CANADA\n")
    assert not _leaks(r, "GRACE", "O'DONOGHUE"), r.text


def test_a_found_names_initials_in_lower_case_sign_after_a_dash(pii):
    r = pii("From: Thuy Vo/HOU/ECT\nTo: Ji-hoon Park\n\nwill ping AP today.\n-tv\n\n\nJi-hoon Park\n12/05/2000 08:41 AM")
    assert not _leaks(r, "-tv"), r.text
    text = "Tom Vance wrote the memo.\nwatch the game tonight -tv"  # not alone on its line: no signature
    assert "-tv" in pii(text).text, pii(text).text


def test_what_a_found_name_brings_its_initials_a_nickname_an_account_and_a_partner(pii):
    # initials in brackets that open with the given name's letter, wherever they stand again; a nickname in quotes
    # with its comma; an account named in brackets; a given name joined to a found name by "and" or "+"
    r = pii("Nurse in charge: Priya (PS)   Handing over: Tomasz W.\n\nBed 2 - obs stable, PS to review at 10.")
    assert not _leaks(r, "PS"), r.text
    r = pii('DUNMORE, Alfred "Alfie," 77, of Leeds, Feb. 2. Service Monday.')
    assert not _leaks(r, "Alfie"), r.text
    r = pii("Users affected: Ingrid Solberg and Tor Bakke (user: tbakke). Chrome and Edge both fail.")
    assert not _leaks(r, "tbakke"), r.text
    r = pii("Two ladies from her church (Grace Boateng and Mercy) will visit on Sundays.")
    assert not _leaks(r, "Mercy"), r.text
    r = pii("Hoisted from floor, x2 staff (Hope M. + Dariusz Zielinski).")
    assert not _leaks(r, "Dariusz Zielinski"), r.text
    # a party's, a role's or a shift's letters stay, and so does a word in brackets or quotes that is no name
    r = pii("Jane Smith (SNP) and John Doe (Chair) met Ana Ruiz (RN). Rota: Bo Lee (PM), Ann Park (NIC).")
    assert all(w in r.text for w in ("SNP", "Chair", "RN", "PM", "NIC")), r.text


def test_numbers_a_service_desk_a_register_or_a_masked_card_gives(pii):
    r = pii("Subject: RITM0091842 - Access request: Ana Ruiz - Trader role")
    assert "RITM0091842" not in r.text, r.text
    r = pii("I PHONED 4 TIMES. THE LAST REFERENCE THEY GAVE ME IS REP/2024/551908.")
    assert "REP/2024/551908" not in r.text, r.text
    r = pii("IN THE FAMILY COURT\n\nDivorce (Transferred) No 3719 of 2020\n\nBetween\n\nAna Ruiz")
    assert "3719 of 2020" not in r.text, r.text
    r = pii("Card on file (Visa **** 6617) pre-auth $500, please advise.")
    assert "6617" not in r.text, r.text
    # a standard's, an advisory's or a year's numbers stay
    text = "Our audit follows the ISO/2019/27001 notes; CVE-2021-44228 was patched in 2022 (No 3 of the list)."
    assert pii(text).text == text, pii(text).text


def test_accounts_a_ticket_field_an_irc_log_a_forum_and_a_payment_address_print(pii):
    r = pii("[2024-05-18 23:41 UTC] BAN\nUser: v0idwalker_ (ID: 88112233)\n\n---- INTERNAL NOTE ----\nAgent: mkarlsen")
    assert not _leaks(r, "v0idwalker_", "mkarlsen"), r.text
    r = pii("[21:02] <tkowal> anyone know systemd?\n[21:03] <brisket> ask the question\n[21:03] <tkowal> unit won't "
            "start\n[21:04] <brisket> paste the journal")
    assert not _leaks(r, "tkowal", "brisket"), r.text
    r = pii("Re: Rent wahala by adaeze_b(f): 10:12am On Mar 03\nRe: Rent wahala by lagosboy(m): 10:40am On Mar 03")
    assert not _leaks(r, "lagosboy"), r.text
    r = pii('Rs. 2,400 was debited to the UPI ID "sunitha.v@oksbi" without my consent.')
    assert not _leaks(r, "sunitha.v@oksbi"), r.text
    # a ticket's fields that name a team or a mailbox stay
    text = "Owner: finance\nAuthor: admin\nPriority: high"
    assert pii(text).text == text, pii(text).text


def test_dotted_initials_that_act_in_a_judgment_and_initials_beside_a_found_name(pii):
    r = pii("On each occasion the bailiffs called, V.S. either was not at home or refused. The bailiffs fined V.S. "
            "twice.")
    assert not _leaks(r, "V.S."), r.text
    r = pii("3. Limit increase: Continental Power Desk, +EUR 2m VaR (Conrad Whitaker / MS) - 25 min")
    assert not _leaks(r, "MS"), r.text


def test_a_name_addressed_before_a_full_stop_a_possessive_will_and_a_name_before_a_quoted_nickname(pii):
    r = pii("Thanks to the Friday five-a-side lot - sorry about the ankle, Paddy.\n\nDrinks from 5:30")
    assert not _leaks(r, "Paddy"), r.text
    r = pii("Cover as follows:\n- Ana to run the book until 12:00\n- Will's BM submissions up to SP20")
    assert not _leaks(r, "Will's"), r.text
    r = pii('Handicap (13-20): 1. T. "Tiger" Walsh (17) 43 pts; 2. Ann Lee (18) 40 pts')
    assert not _leaks(r, "T."), r.text
    # a list's last place, a language, a month or a date stay
    text = "We met in Paris, Jordan. She speaks Polish, German. It opens Friday, Jan. 24."
    assert pii(text).text == text, pii(text).text


def test_a_mail_apps_footer_ends_a_message_signed_with_initials_and_parties_by_letters_over_their_roles(pii):
    r = pii("you can text me after 7pm, please dont call during the day\n\nthank u\nRJ\n\nSent from Yahoo Mail for "
            "iPhone")
    assert not _leaks(r, "RJ"), r.text
    r = pii("[2023] SGFC 31\n\nBetween\n\nXKV\n... Plaintiff\n\nAnd\n\nXKW\n... Defendant\n\nGROUNDS OF DECISION\n\n"
            "1 XKW sought care and control.")
    assert not _leaks(r, "XKV", "XKW"), r.text
    r = pii("Subject: RE: judgment - Ruiz v Ortega (ZE22D01188) - CONFIDENTIAL\n\nNetwork user ID:   aalhashimi\n"
            "Broker/account:  Interactive Brokers UK, account U7734219")
    assert not _leaks(r, "ZE22D01188", "aalhashimi", "U7734219"), r.text


def test_a_given_name_of_another_countrys_lists_before_a_listed_surname(pii):
    # no dictionary holds the given name, a list of some country holds the surname, a town may share the given name
    r = pii("The licence belonged to Ravi Shenoy (leaver), so reassign it. Checked by Lukas Hoffmann.")
    assert not _leaks(r, "Ravi Shenoy", "Lukas Hoffmann"), r.text
    text = "My English is fine. My Ring camera caught nothing."
    assert pii(text).text == text, pii(text).text


def test_the_holder_of_a_found_account_in_brackets_after_it(pii):
    r = pii("Type: Support   Priority: P2\nReporter: @hbeaumont (Hugo Beaumont)\nAssignee: @it_ops (Service Desk)")
    assert not _leaks(r, "Hugo Beaumont"), r.text
    assert "Service Desk" in r.text, r.text


def test_a_name_before_its_account_in_brackets_and_a_shift_handed_over_by_an_arrow(pii):
    r = pii("Attending: Chair - Ana Ruiz (@anaruiz_), Treasurer - Lowri (@lowri_c), Events - Team (@events_team)")
    assert not _leaks(r, "Lowri"), r.text
    assert "Events - Team" in r.text, r.text
    r = pii("Handed over: Ana Ruiz → Kofi Mensah")
    assert not _leaks(r, "Kofi Mensah"), r.text


def test_logins_listed_in_a_bracket_with_a_found_one_and_a_name_greeted_good_morning_short(pii):
    r = pii("Yusuf Demir signed off, access granted for the overnight users (ydemir, cokonkwo, hjang, tpuketapu).")
    assert not _leaks(r, "cokonkwo", "tpuketapu"), r.text
    r = pii("Granted (jlee_2, admin, reports, cokonkwo)")
    assert "admin, reports" in r.text, r.text
    r = pii("[09:14:20] Ana: morning hugo 118.50 / 119.25 in 25x")
    assert not _leaks(r, "hugo"), r.text


def test_letters_signed_in_lower_case_over_a_quoted_reply_and_a_surname_after_a_name_and_its_nickname(pii):
    r = pii("the carbon curve is stale, pretty sure thats why june looks off\n\nqd\n\nOn Tue, 4 Jun 2024 at 09:12, "
            "Ana Ruiz <ana.ruiz@example.com> wrote:\n> numbers attached")
    assert not _leaks(r, "qd"), r.text
    text = "i will be late\n\nok\n\nOn Wed, Bo wrote:\n> hi"
    assert "\n\nok\n\n" in pii(text).text, pii(text).text
    r = pii("Resident: Agnieszka (Aga) Brightwater   Room 9\nDate: Mon 3rd")
    assert not _leaks(r, "Brightwater"), r.text
    r = pii("BAY 2 - ROSALIND (ROS) KETTLEWELL - FOR DISCHARGE TODAY")
    assert not _leaks(r, "KETTLEWELL"), r.text
    r = pii("ASKED THAT ROSALIND (DAUGHTER) REMAIN ON WARD. Quote for Ana Ruiz (Ana) Ltd attached.")
    assert "REMAIN" in r.text and "Ltd" in r.text, r.text
    text = "Met Ana Ruiz (Ana) Tuesday about the room."
    assert "Tuesday" in pii(text).text, pii(text).text


def test_care_home_staff_by_their_role_in_brackets_and_nicknames_a_phone_or_a_resident_answers_to(pii):
    r = pii("Hand massage 10 mins.\n– Faith (activities)")
    assert not _leaks(r, "Faith"), r.text
    r = pii("Meds given by senior (Rosa). PRN paracetamol 1g at 1015.")
    assert not _leaks(r, "Rosa"), r.text
    r = pii("Bob had a bad night, dentist needs ringing. - Precious N (nights)")
    assert not _leaks(r, "Precious N"), r.text
    r = pii('Pleasantly confused. Responds to "Dez".\nHis phone held a contact saved as "Tinks".')
    assert not _leaks(r, "Dez", "Tinks"), r.text
    text = "the senior (Spanish) team. Responds to 'pain' only. The team leader (Operations) said so."
    assert pii(text).text == text, pii(text).text


def test_petitions_a_prisons_register_a_police_report_and_a_french_files_number(pii):
    r = pii("CRIMINAL REVISION PETITION NO. 2207 OF 2020\n\nBETWEEN:")
    assert not _leaks(r, "2207 OF 2020"), r.text
    r = pii("He is held at FCI Dublin (Register No. 40917-112). Quote report number RS23-0411-0031.")
    assert not _leaks(r, "40917-112", "RS23-0411-0031"), r.text
    r = pii("COUR NATIONALE DU DROIT D'ASILE\n\nN° 23018876\n\nM. X")
    assert not _leaks(r, "23018876"), r.text
    text = "See the report no. 3 and the annual report 2023. Il habite au n° 12."
    assert "report no. 3" in pii(text).text and "report 2023" in pii(text).text, pii(text).text



def test_a_found_names_initials_elsewhere_in_the_text_and_a_masked_cards_last_digits(pii):
    r = pii("Present: Hamid Rezaei (chair), Ann Lee, Bo Kim.\n2. Minutes approved. Proposed AL, seconded HR.\n"
            "3. Street party: BK to book the road closure.")
    assert not _leaks(r, "AL", "HR", "BK"), r.text
    # letters a name spells by chance stay where they are a vital sign, a shift or a word of function
    text = "Seen with Hamid Rezaei and Ian Taylor. Obs: HR 76, BP 120/80. IT WAS LATE. Mon AM"
    r = pii(text)
    assert "HR 76" in r.text and "IT WAS" in r.text and "Mon AM" in r.text, r.text
    r = pii("Refund for the order on your card ****4417 was made. Acct ***8825 closed.")
    assert not _leaks(r, "4417", "8825"), r.text


def test_a_records_code_with_no_label_but_no_standards_or_sums(pii):
    r = pii("I can see LF-3309127 has had 14 disconnections. The number on the form (P01457728) matches.")
    assert not _leaks(r, "LF-3309127", "P01457728"), r.text
    text = "See ISO-27001, CVE-2021-44228 and PMID 31452104; it cost USD12500. Flight BA0117."
    assert pii(text).text == text, pii(text).text


def test_a_tables_columns_two_spaces_apart_comma_separated_rows_and_a_bed_boards_patients(pii):
    # a cell two spaces from the next on a line a wider gap aligns is still a cell of its own
    r = pii("NAME               TEAM          EXT    MOBILE\nOkonjo, Ifeoma     Coal Trading  5512   07700 900 414\n"
            "Berg, Lasse        Freight       5519   07700 900 227\n")
    assert not _leaks(r, "5512", "5519"), r.text
    # a comma-separated export's phone, certificate and confirmation columns
    r = pii("first_name,last_name,mobile,joined\nTevita,Mahe,022 615 7740,2019\nIrene,Sousa,,2021\n"
            "Kalani,Akana,029 441 0082,2022\n")
    assert not _leaks(r, "022 615 7740", "029 441 0082"), r.text
    # (a header's empty cell keeps its place, as a row's does)
    r = pii("name,,phone,joined\nTevita,x,022 615 7740,2019\nIrene,,029 441 0082,2021\n")
    assert not _leaks(r, "022 615 7740", "029 441 0082"), r.text
    r = pii("Name | Role | DBS cert no. | Hotel conf.\nNoor Haddad | Driver | 001933482115 | 77120943\n")
    assert not _leaks(r, "001933482115", "77120943"), r.text
    # surnames in capitals with an initial after each bed's code
    r = pii("BAY C\nC1  OYELARAN, F     Dr Mistry   EDD 14/3\nC2  PETROVA, K      Dr Mistry   EDD ?\n"
            "C3  HALVORSEN, B    Dr Adu      awaiting echo\n")
    assert not _leaks(r, "OYELARAN", "PETROVA", "HALVORSEN"), r.text
    for text in ("year,units,revenue\n2021,120,3400\n2022,135,3720\n",
                 "ITEM          QTY   PRICE\nOil filter    2     12.50\nAir  filter   1     9.99\n",
                 "Thanks.  I will call at 3.  See you then."):
        assert pii(text).text == text, pii(text).text


def test_a_legends_single_spelled_pair_a_linkedin_path_a_device_footer_and_other_languages_greetings(pii):
    r = pii("Outage posted on the platform by TK at 19:58.\n\nTK = Taini Kealoha")
    assert not _leaks(r, "TK", "Taini Kealoha"), r.text
    r = pii("- Hine asked for halal meals.\nAO = Aoife   LH = Lwazi")
    assert not _leaks(r, "Aoife", "Lwazi"), r.text
    r = pii("Personal email below.\nLinkedIn: /in/tevitafonua\n\nDrinks at 6")
    assert not _leaks(r, "tevitafonua"), r.text
    r = pii("book it at 87.40, hedge book.\n\nrk\n\nsent from mobile\n\n> On 2 May 2025, Ana Ruiz wrote:\n> offer?")
    assert not _leaks(r, "rk"), r.text
    r = pii("Kia ora Hemi,\n\nRe your question - yes.")
    assert not _leaks(r, "Hemi"), r.text
    for text in ("Aloha,\n\nwe are open till 5.", "TC = Total Cost, UK = Ukraine", "To: the desk\nCc: Credit-Approvals\n"):
        assert pii(text).text == text, pii(text).text


def test_a_name_the_model_finds_inside_a_sentence_though_the_text_also_writes_it_in_lower_case(pii):
    for name in ("Lovelyn", "Jovenal"):  # (no list holds them: a list's given name stood before)
        r = pii(f"am: slept well. took meds ok with {name}, no issues.\nlunch: ate half.\n\n{name.lower()} / care asst")
        assert not _leaks(r, name, name.lower()), r.text
    # a common noun that opens a sentence and recurs in lower case stays: "Bananas cost ... less than bananas"
    text = "Apples cost more this week. Bananas cost less than bananas did. Rm 4 is free; book rm 4 by noon."
    assert pii(text).text == text, pii(text).text


def test_a_street_whose_suffix_chat_writes_in_lower_case(pii):
    r = pii("[14:03] agent: can you confirm the service address?\n[14:03] kalani: 88 Kowhai street, the blue gate")
    assert not _leaks(r, "88 Kowhai street"), r.text
    for text in ("Chapter 3 Road trip", "We sold 3 Apple products on the street."):
        assert pii(text).text == text, pii(text).text


def test_every_greeting_first_word_opens_a_greeting_form():
    # the greeting rules read GREETINGS (the forms) and GREETING_FIRST_WORDS (the word each opens with): one list
    # grown without the other lets a greeting's first word be read as a name
    import re
    from beam_jobs.pii_words import GREETING_FIRST_WORDS, GREETINGS
    for word in GREETING_FIRST_WORDS:
        assert any(re.match(rf"(?i)(?:{GREETINGS})\b", f"{word} {rest}") for rest in ("", "x", "ora", "koe", "morning",
                                                                                      "dias", "tag")), word
