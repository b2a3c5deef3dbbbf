async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(366);

  brush.noStroke();
  const pal = ["#e63946", "#f1faee", "#a8dadc", "#457b9d", "#1d3557"];
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      brush.fill(pal[(i + j) % 5], 110);
      brush.fillBleed(0.1);
      brush.fillTexture(0.3, 0.3);
      brush.rect(60 + i * 125, 60 + j * 125, 105, 105);
    }
  }
}
