// The floor of the cold-start benchmark: the least a Swift stdin-to-stdout program does.
// It reads standard input to the end and writes it back, with the standard library only,
// built like the functions (-O, one static executable).
var input: [UInt8] = []
while let line = readLine(strippingNewline: false) { input.append(contentsOf: line.utf8) }
print(String(decoding: input, as: UTF8.self), terminator: "")
