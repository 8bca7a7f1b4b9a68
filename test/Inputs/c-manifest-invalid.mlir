func.func @scalar(%x: f32) {
  return
}
