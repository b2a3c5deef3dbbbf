function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffdf5");
  brush.noStroke();
  const pal = ["#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51", "#8ab17d"];
  for (let i = 0; i < 12; i++) {
    brush.fill(pal[i % 6], 80 + (i % 4) * 20);
    brush.fillBleed(0.1 + (i % 5) * 0.1, i % 2 ? "out" : "in");
    brush.fillTexture(0.3 + (i % 3) * 0.2, 0.5);
    const x = 100 + (i % 4) * 130, y = 120 + Math.floor(i / 4) * 170;
    brush.polygon([[x - 60, y - 50], [x + 50, y - 60], [x + 65, y + 45], [x - 40, y + 60]]);
  }
}
