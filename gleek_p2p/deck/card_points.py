"""The 44 card points, shipped as constants.

Card ``c`` is the libsodium ``crypto_core_ed25519_from_uniform`` of
``SHA-512(b"gleek-p2p/deck/v1/card" || u8(c))[:32]``;
card id = suit * 11 + rank (suits S H D C, ranks A K Q J T 9 8 7 6 5 4).
``tests/test_deck_group.py`` rederives them (libsodium is deprecating ``from_uniform``).
"""

CARD_POINTS: tuple[bytes, ...] = (
    bytes.fromhex("faf25518bea727d334bc461b4841aabaa1650231d646b8ad1cc2bdf61bf70242"),  # 0 AS
    bytes.fromhex("5e5417730a989c1c801a8d605e3d04e5323bdf31c4de6e4a5c4afde2a5f0151e"),  # 1 KS
    bytes.fromhex("ff74951172872704a8e0e9c9a4fdac5225cb2934b126330b819af8e75eff4aa4"),  # 2 QS
    bytes.fromhex("8ad1c4cda02b32efb33cef83f71c901f5224e454b6871342cb6592c8d1fbd8fe"),  # 3 JS
    bytes.fromhex("dea4e6c46214582c34b9184c6a3696494295185f4be0101370fe324cc6fe5c53"),  # 4 TS
    bytes.fromhex("ac6d90e04f79de87f64afbe0452c3b3abbd9dbf896e654bec103ae37dbf71924"),  # 5 9S
    bytes.fromhex("9e1afcd561d4cdce2392b3382be051d0d8ff928e6d3d1a5a957905464180257e"),  # 6 8S
    bytes.fromhex("13cdc50c01bab8255200581f64e9ce9ce5aaa7d6ca0a34b15098af8b2dad5d2a"),  # 7 7S
    bytes.fromhex("d4fd4b1983e88e49971d1cc442d6eb0484fea340f87db7e4cd5cfa6644facb7d"),  # 8 6S
    bytes.fromhex("6d37d247f5e286d343805d760117108dd05adb57b86c70ca75e1d75775e2d483"),  # 9 5S
    bytes.fromhex("02c83956848faae2a0a742bd05f4185c9ecf1d8140b9cde33778c88347abb24e"),  # 10 4S
    bytes.fromhex("d1d9474a6fed662366dc9a81a60b3f07a3fc77bc9328661c8745e34953beceaf"),  # 11 AH
    bytes.fromhex("c57e1e9f23e085a4e8f88773dbd92499122d839d8afceb0f4e3216bacc932746"),  # 12 KH
    bytes.fromhex("69841e56ff9c33bc4eab3c5465f9751355e5009791840f0e61b5d8c9d955978c"),  # 13 QH
    bytes.fromhex("3f58f4ed7fc151630c15bcdb356c7eae19150fd40ba7b6c4f5c5b5c0ec3a58bb"),  # 14 JH
    bytes.fromhex("bc0d710e46c97b564569ac0d5cfe601d610d08567ae7334fd90f00f633e25d0f"),  # 15 TH
    bytes.fromhex("57c5acf232af5633bccb6182adf4e4da21e0e11086e6af16d430f0970fc660bc"),  # 16 9H
    bytes.fromhex("65e2848fac5ef29c93bd745423fd9585146b9c38ef7fd3c69705f4d2b7e4491b"),  # 17 8H
    bytes.fromhex("86ea31966986404c1b6baa480daddf1c5257f9007f6c2b2cfd67936410e597e3"),  # 18 7H
    bytes.fromhex("cf7befae6f7beecd63b64566a92126a87ecd62bb0353e2afe0b0b533f6c82d81"),  # 19 6H
    bytes.fromhex("306ac175a7fdf2b1ff24064ca74b46fc33417b60861e4213da62d7eac3367e6d"),  # 20 5H
    bytes.fromhex("91db63219ce21ee8cfc87a883264b953d9251b79d6fadc9f4e96dc3bef948f7a"),  # 21 4H
    bytes.fromhex("8774b6d30028ea5484851c960bf75b88f91e683f047e21bdc93a4d1e290d4ca8"),  # 22 AD
    bytes.fromhex("24054739cb76aa269acc85b3087ba31318069dd8677592aec89a9da1582060c3"),  # 23 KD
    bytes.fromhex("50ec89c01e20da8012d55cc5093a82b9acb9d76a3dfd16309831e8d683000939"),  # 24 QD
    bytes.fromhex("734863593766bd693ae791c1e96e01bf4ee46b3d5f8ca9076caea05b23cf4ed2"),  # 25 JD
    bytes.fromhex("b5166fa56f17bfe45c2604ecfa157ebb54af30c155ecd9dd7dfd22220664a620"),  # 26 TD
    bytes.fromhex("ff0dc11fed83d4c9c749b0a8efccbc9225e0929876ad1c456ce96b57921f05b0"),  # 27 9D
    bytes.fromhex("ada8035d44e479184dff95d7f95b7946506a8dd05d80d2b983c22a5f595e36be"),  # 28 8D
    bytes.fromhex("2eb0a5647de8f85be712df0d6e20dd20b6a82e92bb8b4ac62446889489e78417"),  # 29 7D
    bytes.fromhex("c63683589df0d0c5d0e44b4ff2db358a1438de7563b202ad4152360cfc5d1274"),  # 30 6D
    bytes.fromhex("4ac9ec08939c0d0fda72cef070810b10000fb6f78a4ff5bd1d704dde6d915ab3"),  # 31 5D
    bytes.fromhex("5380890713a22097d794b5c78db9d008764a57f7ed24b2a8541ce5336e6723be"),  # 32 4D
    bytes.fromhex("bec599fe62e19fb1e14bbb32a77463ff21a705d1c2642d374a9647d2d2573e1b"),  # 33 AC
    bytes.fromhex("e74237f97273d4f3adc6845186c29973d607a3380957393c0ad889729113bb9e"),  # 34 KC
    bytes.fromhex("2bb46497a64ec4c3f8453ff3849894912a22481ea38fe5d40c2d18c2c873c160"),  # 35 QC
    bytes.fromhex("79485d4f8048db3f6a99d04246663fc8d460675a030e63fc1699c3dbb0e1ade9"),  # 36 JC
    bytes.fromhex("3956c9453d86f1a4edb0cc9ac023ae49a47d6c65dee6051ea120a319a26ad7a2"),  # 37 TC
    bytes.fromhex("6ee63fbaa09d72c2d8e52b48f91770bd20ea8bc2bc472f64cf72348ca79561e1"),  # 38 9C
    bytes.fromhex("5b9381f0d24d8c203300883a5a19ee47e727b9ff70894c38f0c5ead3dd151f22"),  # 39 8C
    bytes.fromhex("62d0ca45869ffb29af9fedfeb2199920465c94d061b01adc8054f92a2501ce33"),  # 40 7C
    bytes.fromhex("e0946f09da7fed52a65438c106c4e5003f265d41048a374ae38b247306fac09d"),  # 41 6C
    bytes.fromhex("a76d1b3e9385a8a329fc1bc9844b0f8dd2ad524050be2c8ac7fc449861a675bd"),  # 42 5C
    bytes.fromhex("f5eb4c19a775cdd57564b193f8f48e95e5cac01d5713560cfc7edc598673e3c0"),  # 43 4C
)
