"""The 44 card points of deck protocol version 3 (secp256k1), shipped as constants.

Card ``c`` is ``group_v3.hash_to_point(b"gleek-p2p/deck/v3/card", u8(c))``:
the first ``x = SHA-256(frame(label, u8(c), u32(ctr)))`` that is a point's
abscissa, with even y (33-byte compressed form); card id = suit * 11 + rank
as in ``card_points.py``. ``tests/test_deck_v3.py`` rederives them.
"""

CARD_POINTS_V3: tuple[bytes, ...] = (
    bytes.fromhex("02b8512af9bd42a3ddf2c4570483e5186772d84d7c04327b2ce899f245f78c372f"),  # 0 AS
    bytes.fromhex("0225fabe6bf92d53067855a3b552e88919008c8c8cd0ae1ae228e2154a1128d111"),  # 1 KS
    bytes.fromhex("02c1e518f7353696c070625e44d4b13827a42bd0a3a53a8ea01b9e560fdd6d9a3f"),  # 2 QS
    bytes.fromhex("02f8205763dca52ecb431f0484660260a6563244c954d9bbcb08aeee267311c941"),  # 3 JS
    bytes.fromhex("027c5b32f2d4c01a5913b2be164330ad6dc8d451fa2db8dd7e760e5f2dbdfcc942"),  # 4 TS
    bytes.fromhex("028ace49353d1f3cd741507b35d92035592f70c416f67e6e0e88eacf87f1ac2e8d"),  # 5 9S
    bytes.fromhex("02c24c519a85d51a6633baa5c5ea4a522b70a932e18d62ac6201a9e84b91782ed8"),  # 6 8S
    bytes.fromhex("02112ec40bd887ee4cdb12ddba124ff1a0eb26d035bf8b57f579b8257af8331d87"),  # 7 7S
    bytes.fromhex("02eae93f94b96111afb70fe4364f9ae5f0ca2e6d2859af9066e3476bcc1d180f8f"),  # 8 6S
    bytes.fromhex("02226497b9936d5b023a9815e1a03cce0dfb3ae0afd99a44f9ac819759f8de2a60"),  # 9 5S
    bytes.fromhex("0220953cc04315cdab511846bb908ae79aa226e3f18e56d4c0297363d5a48d6e87"),  # 10 4S
    bytes.fromhex("02bacce9d3f384ed6ede79f9d155acba7fbf2417f5a366c9a89a3cd6a4cdfceead"),  # 11 AH
    bytes.fromhex("0290a25ddcfe965e82950ae3f3952a1b3e74cf808c7132a9a5db67709e6f71339c"),  # 12 KH
    bytes.fromhex("026a8b74a944c10e2671da094a5353dfb4f8790aa63d7aa515b50ea79d5d3a95d0"),  # 13 QH
    bytes.fromhex("0224b46cef1fbc8696dddb325c59e1a58c996a67d4fb8aaf09a6b953fa5834be74"),  # 14 JH
    bytes.fromhex("021a526a1bcf29d9a094502651808d219758f85609ffb6883cd96ef802994db851"),  # 15 TH
    bytes.fromhex("02edefb419696a636b022d5ac8ce29ab73813d2321d10dd3eba0d7c1813b7f0afb"),  # 16 9H
    bytes.fromhex("02c36a1cdc39aa989a8556b779b1258366f16fdfcd910f7ec817d2e26f78e21edb"),  # 17 8H
    bytes.fromhex("02b29b9c788d69a20f9ba3fe675aa4417c14d91436058dff315be7dfd48bb95db5"),  # 18 7H
    bytes.fromhex("020e73f2d59142793fb23213260bb691e2507e0c4fa97bcf451540491e38e943c3"),  # 19 6H
    bytes.fromhex("02509d28f4782815eb6a6c3597235f3f12078f6be8bd007c61c6448efd55fe51b8"),  # 20 5H
    bytes.fromhex("02af85c6386e8a05a92131163ad8d08a46ed68c345deedef9b59650a980efcd3fd"),  # 21 4H
    bytes.fromhex("02e19fe14e9b310a98addfab745e30eb4f623209230b8b29f285d593cb52376547"),  # 22 AD
    bytes.fromhex("027ffad59d1a6c73cdb46512943a3dfea2a2e1960b9c6828e2cb596ffc1ffa875e"),  # 23 KD
    bytes.fromhex("0273ef9914601bdf300a933854d0828509b08347458211cfe1496f9bfd547edf61"),  # 24 QD
    bytes.fromhex("029ce4c062fd7051843658d270b5df5ca19375d401bc30105b18be7b3b95aeded2"),  # 25 JD
    bytes.fromhex("025f6b69625dc17380facbe7603ae4567caece92e0a1ed5d684fee0fa3ceddeb6e"),  # 26 TD
    bytes.fromhex("022f33340e16203ebf037848613975941d60ee432f22f111d78ba655a77f611bb9"),  # 27 9D
    bytes.fromhex("025e109a5021b7be7824b76278345025f8f859572525ed29b13d264286d895a51b"),  # 28 8D
    bytes.fromhex("021541039d3ba59154fbd3a6a5472a0d87f5e6b89ceac01c82cd15f9e25ba56b4c"),  # 29 7D
    bytes.fromhex("020d640fb17768198f647bffef6f0cb574f9aaadeb19fda88d91ffb2487028d86c"),  # 30 6D
    bytes.fromhex("0225478de3f65512687ac73b24d16dfb8e761741a05d9f2c9ba3daa8942495b752"),  # 31 5D
    bytes.fromhex("02f6d389788be896b2fd834f3e535cbd323cb22328f771eed464e574c88be898fa"),  # 32 4D
    bytes.fromhex("02ae5586e78a7bb426db4a0b49d9022cbd2bf19c6516fd743d278ee17f139a4cd3"),  # 33 AC
    bytes.fromhex("02f20254fa23b5a44b284be5a7870ac46415fd3d57125944c9421edf3076399414"),  # 34 KC
    bytes.fromhex("027f852155cb569317a0202b6741fe16e2b2df933c59ce5e4677185c8018d28683"),  # 35 QC
    bytes.fromhex("02af07509653916c7ca075c72c3fbf090c8a3712d0ae12d7101049c3f1de95fa0c"),  # 36 JC
    bytes.fromhex("026301bc9b1e385079f8df26767cbfa53ced33cc5b05dca5e34347b0187f7081e4"),  # 37 TC
    bytes.fromhex("025e4d89a3f4e104d19de0eb22a7de42a483d0ecaf478613eaad95ad8ca82f1cdb"),  # 38 9C
    bytes.fromhex("0257e060bc0c98262c2a4123b76dd066c3cba9100d0e3190125b75024dd5479dc8"),  # 39 8C
    bytes.fromhex("02ea3681cb940fdac85500f29047a5b832e1a6db44835636d256e3f4839a359fa0"),  # 40 7C
    bytes.fromhex("02190b6dd25d034bbf4326dd5a7ba962762b6fdaf10f0a39e7c6ed6911af025a1e"),  # 41 6C
    bytes.fromhex("022173cf2e957dbbd64fa43afb92596377a939265c2805110d8fc06f0187f12c31"),  # 42 5C
    bytes.fromhex("025501e2a862fe2ed449741c4ac0fe81bdb275f72b43d4617f664eda835cacd949"),  # 43 4C
)
